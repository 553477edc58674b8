package view

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }

func joinInts(ns []int) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(n)
	}
	return s
}
