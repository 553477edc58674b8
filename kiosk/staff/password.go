package staff

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/villagehall/appliance/domain"
)

// Password policy, after NIST SP 800-63B section 5.1.1.2: a length
// counted in characters, no composition rules (no "one digit, one
// symbol", which people meet with "Password1!"), and a refusal of the
// passwords guessers try first: common and breached ones, the username,
// and repeated or sequential characters.
const (
	minPasswordRunes = 12
	maxPasswordRunes = 200
)

//go:embed commonpasswords.txt
var commonPasswordList string

// commonPasswords is the embedded list as a set, read on first use.
var commonPasswords = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, l := range strings.Split(commonPasswordList, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			set[strings.ToLower(l)] = true
		}
	}
	return set
})

// CheckNewPassword says what is wrong with a new password, or nil. It
// counts characters, not bytes ("é" is one character), so the minimum
// means the same in every language. It refuses a password that contains
// the username, one on the embedded list of common passwords
// (commonpasswords.txt, compared without regard to case or spaces, and
// also once the digits and punctuation around it are taken off, so that
// "Password1234!" counts as "password"), one made of fewer than five
// different characters ("aaaaaaaaaaaa", "121212121212"), and one that is
// a run of the alphabet, the digits or a keyboard row ("abcdefghijkl",
// "123456789012", "qwertyuiopas").
func CheckNewPassword(username, password string) error {
	lower := strings.ToLower(password)
	joined := strings.Join(strings.Fields(lower), "")
	switch n := utf8.RuneCountInString(password); {
	case !utf8.ValidString(password):
		return domain.Errorf(domain.EINVALID, "", "The password contains bytes that are not text. Type it again.")
	case n < minPasswordRunes:
		return domain.Errorf(domain.EINVALID, "", "A password needs at least %d characters.", minPasswordRunes)
	case n > maxPasswordRunes:
		return domain.Errorf(domain.EINVALID, "", "A password can have at most %d characters.", maxPasswordRunes)
	case username != "" && strings.Contains(lower, strings.ToLower(username)):
		return domain.Errorf(domain.EINVALID, "", "A password must not contain the username.")
	case isCommonPassword(lower) || isCommonPassword(joined):
		return domain.Errorf(domain.EINVALID, "", "This password is one of the most common passwords, which are the first ones guessed. Choose another: a few unrelated words make a good password.")
	case distinctRunes(password) < 5 || sequential(joined):
		return domain.Errorf(domain.EINVALID, "", "This password is too easy to guess: it repeats characters or follows the alphabet, the digits or the keyboard. Choose another: a few unrelated words make a good password.")
	}
	return nil
}

// isCommonPassword reports whether p (in lower case) is on the list,
// with or without the digits and punctuation around its letters.
func isCommonPassword(p string) bool {
	set := commonPasswords()
	core := strings.TrimFunc(p, func(r rune) bool { return !unicode.IsLetter(r) })
	return set[p] || core != "" && set[core]
}

func distinctRunes(s string) int {
	seen := map[rune]bool{}
	for _, r := range s {
		seen[r] = true
	}
	return len(seen)
}

// sequential reports whether p (in lower case, without spaces) is a run
// of one of the sequences people type without thinking, forwards or
// backwards, wrapping around ("7890123456").
func sequential(p string) bool {
	for _, seq := range []string{"abcdefghijklmnopqrstuvwxyz", "0123456789", "qwertyuiopasdfghjklzxcvbnm", "azertyuiopqsdfghjklmwxcvbn", "qwertzuiopasdfghjklyxcvbnm"} {
		twice := seq + seq
		if strings.Contains(twice, p) || strings.Contains(reverse(twice), p) {
			return true
		}
	}
	return false
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
