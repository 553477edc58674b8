package domain

const sectionBudget = "§5.03"

// Budget vote actions.
const (
	BudgetAdopt = "adopt" // §5.03: adoption of the budget
	BudgetAmend = "amend" // §5.04: amendment of the adopted budget
)

// BudgetVoteInput is a board vote on the budget.
type BudgetVoteInput struct {
	Action    string `json:"action"`
	BoardSize int    `json:"board_size,omitempty"` // 0: the board_size parameter
	Present   int    `json:"present"`
	Ayes      int    `json:"ayes"`
	On        Date   `json:"on,omitzero"` // date of the vote; zero: the latest values
}

// UnmarshalJSON reads the input strictly.
func (in *BudgetVoteInput) UnmarshalJSON(b []byte) error {
	var x BudgetVoteInput
	var size *int
	if err := decodeObject(sectionBudget, "budget vote", b,
		req("action", &x.Action),
		opt("board_size", &size),
		req("present", &x.Present),
		req("ayes", &x.Ayes),
		opt("on", &x.On),
	); err != nil {
		return err
	}
	if size != nil {
		if *size < 1 {
			return Errorf(EINVALID, sectionBudget, "The board must have at least one member.")
		}
		x.BoardSize = *size
	}
	*in = x
	return nil
}

// BudgetVote is the outcome of a budget vote.
type BudgetVote struct {
	RequiredAyes int  `json:"required_ayes"`
	Quorum       int  `json:"quorum"`
	Passes       bool `json:"passes"`
}

// ComputeBudgetVote applies §5.03 (adoption) and §5.04 (amendment). The
// quorum is a majority of the board, ⌊board/2⌋ + 1. The budget is adopted by
// two thirds of the members present (not of the whole board), rounded up,
// with a quorum present; an amendment needs two thirds of the whole board,
// whoever is present (Wis. Stat. 65.90(5)(a)).
func ComputeBudgetVote(in BudgetVoteInput, p *Params) (BudgetVote, error) {
	var r BudgetVote
	board := in.BoardSize
	if board == 0 {
		v := p.valuesOn(in.On)
		if err := v.require(sectionBudget, in.On, "board_size"); err != nil {
			return r, err
		}
		board = v.BoardSize
	}
	if in.Ayes < 0 || in.Ayes > in.Present || in.Present > board || board < 1 {
		return r, Errorf(EINVALID, sectionBudget,
			"The vote must have 0 ≤ ayes (%d) ≤ present (%d) ≤ board size (%d).", in.Ayes, in.Present, board)
	}
	r.Quorum = board/2 + 1
	switch in.Action {
	case BudgetAdopt:
		r.RequiredAyes = ceilTwoThirds(in.Present)
		r.Passes = in.Present >= r.Quorum && in.Ayes >= r.RequiredAyes
	case BudgetAmend:
		r.RequiredAyes = ceilTwoThirds(board)
		r.Passes = in.Ayes >= r.RequiredAyes
	default:
		return BudgetVote{}, Errorf(EINVALID, sectionBudget, "The action %q is not adopt or amend.", in.Action)
	}
	return r, nil
}

// ceilTwoThirds returns ⌈2n/3⌉ in integers, without a division that rounds.
func ceilTwoThirds(n int) int { return (2*n + 2) / 3 }
