package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Resolutions. The Village Board sets Chapter 5's rates, fees, thresholds
// and holidays by resolution (a fee schedule, §5.11 and §5.20; the rates of
// §5.10 and §5.22 …). In the product a resolution is a command of the
// ledger: its rows are the parameters every node computes with, so two
// nodes never compute the same event with different values, and a node's
// own file can never change the ledger. The ledger is seeded once, from
// the parameters embedded in the build (and a new cluster's --params file),
// by the first resolution ("the ordinance as adopted"); every later one
// adds rows. A row takes effect on its date; a past event is always
// computed with the rows in force on its date, so a resolution may not
// change a parameter before the day it is recorded.

// KindResolution records a resolution of the Village Board that sets
// parameters.
const KindResolution Kind = "resolution"

// CollectionResolutions holds the resolutions, by their order of adoption
// (ResolutionID).
const CollectionResolutions = "resolutions"

// Resolution is a resolution that sets parameters.
type Resolution struct {
	Number    string     `json:"number"` // the board's number, "2026-14"; "seed" for the seeding
	Title     string     `json:"title"`
	AdoptedOn Date       `json:"adopted_on"`
	Ayes      int        `json:"ayes"`
	Nays      int        `json:"nays"`
	Present   int        `json:"present"`
	Rows      []ParamRow `json:"rows"`
	Holidays  []Date     `json:"holidays,omitempty"` // village holidays added
	// Seed marks the first resolution of a ledger: the parameters of the
	// build that seeded it, the ordinance as adopted included.
	Seed bool `json:"seed,omitempty"`
	// Order, set by the ledger, numbers the resolutions as they applied.
	Order int `json:"order,omitempty"`
	// Recorded is when the ledger recorded it (the command's intake time)
	// and By who recorded it.
	Recorded DateTime `json:"recorded,omitzero"`
	By       string   `json:"by,omitempty"`
}

// Kind names the payload's kind.
func (*Resolution) Kind() Kind { return KindResolution }

func (r *Resolution) textFields() []textField {
	fields := []textField{oneLine("The resolution number", r.Number), oneLine("The title", r.Title)}
	for _, row := range r.Rows {
		fields = append(fields, oneLine("A parameter's name", row.Name), oneLine("A parameter's value", row.Value), oneLine("A parameter's note", row.Note))
	}
	return fields
}

var resolutionKind = &Descriptor{
	Kind:  KindResolution,
	Since: 2,
	Roles: []Role{RoleAdministrator, RoleBoard},
	New:   func() Payload { return new(Resolution) },
	Check: func(c Command) error { _, err := c.Payload.(*Resolution).params(); return err },
	Apply: applyResolution,
}

// ResolutionID is the record id of the n-th resolution: the collection
// lists them in the order they applied.
func ResolutionID(n int) string { return fmt.Sprintf("%06d", n) }

// params returns the parameters the resolution's rows and holidays set.
func (r *Resolution) params() (*Params, error) {
	if strings.TrimSpace(r.Number) == "" {
		return nil, Errorf(EINVALID, "", "A resolution needs its number.")
	}
	if len(r.Rows) == 0 && len(r.Holidays) == 0 {
		return nil, Errorf(EINVALID, "", "Resolution %s sets no parameter and adds no holiday.", r.Number)
	}
	var text strings.Builder
	for _, row := range r.Rows {
		if strings.ContainsAny(row.Name+row.Value, " \t\n") || strings.ContainsAny(row.Note, "\n") {
			return nil, Errorf(EINVALID, "", "Resolution %s: the row of %q is malformed.", r.Number, row.Name)
		}
		fmt.Fprintf(&text, "%s %s %s %s\n", row.Effective, row.Name, row.Value, row.Note)
	}
	for _, d := range r.Holidays {
		fmt.Fprintf(&text, "holiday %s\n", d)
	}
	return ParseParams("resolution "+r.Number, []byte(text.String()))
}

// applyResolution records a resolution. The first of a ledger is its seed;
// every later one is refused before the seed, refused when it would change
// a parameter before the day it is recorded, and refused when its vote does
// not pass (a majority of those present, with a quorum of the board).
func applyResolution(tx Tx, c Command, env Env, res *Result) error {
	r := *c.Payload.(*Resolution)
	var count int
	if _, err := tx.Get(CollectionResolutions, "count", &count); err != nil {
		return err
	}
	switch {
	case r.Seed && count > 0:
		return Errorf(ECONFLICT, "", "The ledger's parameters were seeded already.")
	case !r.Seed && count == 0:
		return Errorf(EUNAVAILABLE, "", "The ledger's parameters are not seeded yet; try again in a moment.")
	}
	if _, err := r.params(); err != nil {
		return err
	}
	if !r.Seed {
		for i := 1; i <= count; i++ {
			var prev Resolution
			if _, err := tx.Get(CollectionResolutions, ResolutionID(i), &prev); err != nil {
				return err
			}
			if prev.Number == r.Number {
				return Errorf(ECONFLICT, "", "Resolution %s is recorded already.", r.Number)
			}
		}
		for _, row := range r.Rows {
			if row.Effective.Before(c.At.Date) {
				return Errorf(EINVALID, "", "Resolution %s sets %s from %s, before today (%s): a past event is computed with the values in force then, so a change takes effect today or later.", r.Number, row.Name, row.Effective, c.At.Date)
			}
		}
		for _, d := range r.Holidays {
			if d.Before(c.At.Date) {
				return Errorf(EINVALID, "", "Resolution %s adds the holiday %s, before today.", r.Number, d)
			}
		}
		board := env.Params.At(c.At.Date).BoardSize
		quorum := board/2 + 1
		if r.Ayes < 0 || r.Nays < 0 || r.Ayes+r.Nays > r.Present || r.Present > board {
			return Errorf(EINVALID, "", "The vote of resolution %s does not add up: %d ayes and %d nays of %d present, on a board of %d.", r.Number, r.Ayes, r.Nays, r.Present, board)
		}
		if r.Present < quorum || r.Ayes*2 <= r.Present {
			return Errorf(EINVALID, "", "Resolution %s did not pass: %d ayes of %d present (a quorum is %d; a majority of those present must vote aye).", r.Number, r.Ayes, r.Present, quorum)
		}
	}
	count++
	r.Order, r.Recorded, r.By = count, c.At, c.Actor
	if err := tx.Put(CollectionResolutions, ResolutionID(count), r); err != nil {
		return err
	}
	if err := tx.Put(CollectionResolutions, "count", count); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("resolution %s recorded: %d parameter rows, %d holidays", r.Number, len(r.Rows), len(r.Holidays))
	return nil
}

// ParamsOf returns the parameters a ledger's resolutions set, in the order
// they applied: a row replaces an earlier resolution's row of the same
// parameter and date, and adds to the others; holidays add up.
func ParamsOf(rs []Resolution) (*Params, error) {
	p := &Params{rows: map[string][]paramRow{}}
	var holidays []Date
	for _, r := range rs {
		q, err := r.params()
		if err != nil {
			return nil, err
		}
		p = p.Merge(&Params{rows: q.rows})
		holidays = append(holidays, q.holidays...)
	}
	p = p.WithHolidays(holidays)
	if err := p.Complete(); err != nil {
		return nil, err
	}
	return p, nil
}

// SeedResolution returns the first resolution of a ledger: every row and
// holiday of p, the parameters of the build (and file) that seeds it.
func SeedResolution(p *Params, on Date) *Resolution {
	return &Resolution{Number: "seed", Title: "Chapter 5 as adopted, with the village's fee schedule and holidays",
		AdoptedOn: on, Rows: p.Rows(), Holidays: p.Holidays(), Seed: true}
}

// Changes lists what r would change, row by row, against p (the ledger's
// parameters before it): the value in force on the row's date and the new
// one. It is the preview a resolution shows before it is recorded.
func (r *Resolution) Changes(p *Params) ([]ParamChange, error) {
	q, err := r.params()
	if err != nil {
		return nil, err
	}
	var out []ParamChange
	for _, row := range q.Rows() {
		old := ""
		for _, pr := range p.Rows() {
			if pr.Name == row.Name && !pr.Effective.After(row.Effective) {
				old = pr.Value
			}
		}
		out = append(out, ParamChange{Name: row.Name, Effective: row.Effective, Old: old, New: row.Value, Note: row.Note})
	}
	for _, d := range q.Holidays() {
		if !slices.Contains(p.Holidays(), d) {
			out = append(out, ParamChange{Name: "holiday", Effective: d, New: "holiday"})
		}
	}
	return out, nil
}

// ParamChange is one change a resolution makes: parameter Name takes New
// from Effective, where Old was in force.
type ParamChange struct {
	Name      string
	Effective Date
	Old, New  string
	Note      string
}
