package domain

import (
	"strconv"
	"testing"
)

func TestBudgetVoteEdges(t *testing.T) {
	vote := func(action string, board, present, ayes int) string {
		s := `{"action":"` + action + `","present":` + strconv.Itoa(present) + `,"ayes":` + strconv.Itoa(ayes)
		if board > 0 {
			s += `,"board_size":` + strconv.Itoa(board)
		}
		return s + "}"
	}
	rows := []ruleRow{
		{"§5.03", "adopt all present needs 5", vote("adopt", 7, 7, 5), map[string]any{"required_ayes": 5, "quorum": 4, "passes": true}, ""},
		{"§5.03", "adopt all present 4 fails", vote("adopt", 7, 7, 4), map[string]any{"required_ayes": 5, "passes": false}, ""},
		{"§5.03", "adopt two thirds of present not board", vote("adopt", 7, 4, 3), map[string]any{"required_ayes": 3, "passes": true}, ""},
		{"§5.03", "adopt 6 present needs 4", vote("adopt", 7, 6, 4), map[string]any{"required_ayes": 4, "passes": true}, ""},
		{"§5.03", "adopt 5 present needs 4", vote("adopt", 7, 5, 3), map[string]any{"required_ayes": 4, "passes": false}, ""},
		{"§5.03", "adopt without quorum fails", vote("adopt", 7, 3, 3), map[string]any{"required_ayes": 2, "quorum": 4, "passes": false}, ""},
		{"§5.03", "board size default 7", vote("adopt", 0, 4, 3), map[string]any{"quorum": 4, "passes": true}, ""},
		{"§5.03", "even board quorum", vote("adopt", 6, 4, 3), map[string]any{"quorum": 4, "required_ayes": 3, "passes": true}, ""},
		{"§5.04", "amend needs two thirds of board", vote("amend", 7, 5, 5), map[string]any{"required_ayes": 5, "passes": true}, ""},
		{"§5.04", "amend 4 of 7 fails", vote("amend", 7, 7, 4), map[string]any{"required_ayes": 5, "passes": false}, ""},
		{"§5.04", "amend board of 9", vote("amend", 9, 9, 6), map[string]any{"required_ayes": 6, "quorum": 5, "passes": true}, ""},
		{"§5.04", "amend nobody present", vote("amend", 7, 0, 0), map[string]any{"required_ayes": 5, "passes": false}, ""},
		{"§5.03", "ayes above present", vote("adopt", 7, 5, 6), nil, EINVALID},
		{"§5.03", "present above board", vote("adopt", 7, 8, 6), nil, EINVALID},
		{"§5.03", "negative ayes", vote("adopt", 7, 5, -1), nil, EINVALID},
		{"§5.03", "board size zero", `{"action":"adopt","present":0,"ayes":0,"board_size":0}`, nil, EINVALID},
		{"§5.03", "unknown action", vote("veto", 7, 5, 5), nil, EINVALID},
	}
	runRuleTable(t, "5.03/budget-vote", DefaultParams(), rows)
}
