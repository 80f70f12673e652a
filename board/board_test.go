package board

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseLease(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30m", 30 * time.Minute, ""},
		{"2h", 2 * time.Hour, ""},
		{"1ms", time.Millisecond, ""},
		{"-5m", 0, "must be positive"},
		{"0s", 0, "must be positive"},
		{"0", 0, "must be positive"},
		{"169h", 0, "at most"},
		{"soon", 0, "want a duration"},
		{"", 0, "want a duration"},
	} {
		got, err := ParseLease(c.in)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("ParseLease(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseLease(%q) error %v, want %q", c.in, err, c.err)
		}
	}
}

func TestCheckBlockedBy(t *testing.T) {
	items := []Item{
		{ID: "a"},
		{ID: "b", BlockedBy: []string{"a"}},
		{ID: "c", BlockedBy: []string{"b"}},
		{ID: "d"},
	}
	get := Lookup(items)
	for _, c := range []struct {
		id      string
		blocked []string
		err     string
	}{
		{"d", []string{"a", "c"}, ""},
		{"a", []string{"d"}, ""},
		{"a", []string{"c"}, "cycle: a → c → b → a"},
		{"a", []string{"b"}, "cycle"},
		{"a", []string{"a"}, "by itself"},
		{"a", []string{"zz"}, "no such item"},
		{"new", []string{"c"}, ""},
	} {
		err := CheckBlockedBy(c.id, c.blocked, get)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckBlockedBy(%s, %v) = %v, want %q", c.id, c.blocked, err, c.err)
		}
	}
}

func TestReady(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	lease := func(until time.Time) *Claim {
		return &Claim{Who: Who{Session: "s"}, At: now.Add(-time.Hour), Until: until}
	}
	items := []Item{
		{ID: "open", Status: Open},
		{ID: "leased", Status: Claimed, Claim: lease(now.Add(time.Minute))},
		{ID: "expired", Status: Claimed, Claim: lease(now)},
		{ID: "done", Status: Done},
		{ID: "dropped", Status: Dropped},
		{ID: "blocked", Status: Open, BlockedBy: []string{"open"}},
		{ID: "unblocked", Status: Open, BlockedBy: []string{"done", "dropped"}},
		{ID: "unknown", Status: Open, BlockedBy: []string{"gone"}},
	}
	var got []string
	for _, it := range ReadyOf(items, now) {
		got = append(got, it.ID)
	}
	if strings.Join(got, " ") != "expired open unblocked" {
		t.Fatalf("ready = %v", got)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestMerge(t *testing.T) {
	t0 := mustTime("2026-11-26T10:00:00Z")
	base := Item{ID: "x", Text: "base", Status: Open, Created: t0, Updated: t0}
	claim := func(s string, at time.Time) *Claim {
		return &Claim{Who: Who{Session: s, Host: "h"}, At: at, Until: at.Add(time.Hour)}
	}
	ours, theirs := base.Clone(), base.Clone()
	ours.Status, ours.Claim, ours.Updated = Claimed, claim("alice", t0.Add(2*time.Minute)), t0.Add(2*time.Minute)
	theirs.Status, theirs.Claim, theirs.Updated = Claimed, claim("bob", t0.Add(time.Minute)), t0.Add(time.Minute)
	theirs.Text = "renamed"
	m := Merge(base, ours, theirs)
	if m.Claim.Session != "bob" || len(m.Lost) != 1 || m.Lost[0].Session != "alice" || m.Text != "renamed" {
		t.Fatalf("merge = %+v: want bob's earlier claim, alice's lost, their text", m)
	}
	// Done beats a claim; the claimant who lost is told.
	ours.Status, ours.Claim = Done, claim("alice", t0.Add(3*time.Minute))
	if m := Merge(base, ours, theirs); m.Status != Done || m.Claim.Session != "alice" || len(m.Lost) != 1 || m.Lost[0].Session != "bob" {
		t.Fatalf("done vs claimed = %+v", m)
	}
}

// FuzzMergeSymmetric: whichever side is ours, a merge is the same bytes,
// so two clones that merge each other end byte-identical.
func FuzzMergeSymmetric(f *testing.F) {
	f.Add("base", "a", "b", uint8(1), uint8(2), int64(1), int64(2), "n1", "n2", "x", "y")
	f.Add("t", "t", "u", uint8(0), uint8(3), int64(5), int64(5), "", "n", "", "y")
	f.Fuzz(func(t *testing.T, bt, ot, tt string, os, ts uint8, oat, tat int64, on, tn, ob, tb string) {
		t0 := mustTime("2026-11-26T10:00:00Z")
		statuses := []Status{Open, Claimed, Done, Dropped}
		mk := func(text string, st uint8, at int64, note, blocked string) Item {
			it := Item{ID: "x", Text: text, Status: statuses[int(st)%4], Created: t0, Updated: t0.Add(time.Duration(uint64(at)%1000) * time.Second)}
			if it.Status != Open {
				c := Claim{Who: Who{Session: text, Host: "h"}, At: t0.Add(time.Duration(uint64(at)%7) * time.Minute)}
				c.Until = c.At.Add(time.Hour)
				it.Claim = &c
			}
			if note != "" {
				it.Notes = []Note{{At: t0, By: "p", Text: note}}
			}
			if blocked != "" {
				it.BlockedBy = []string{blocked}
			}
			return it
		}
		base := mk(bt, 0, 0, "", "")
		o, th := mk(ot, os, oat, on, ob), mk(tt, ts, tat, tn, tb)
		m1, _ := json.Marshal(Merge(base, o, th))
		m2, _ := json.Marshal(Merge(base, th, o))
		if string(m1) != string(m2) {
			t.Fatalf("not symmetric:\n%s\n%s", m1, m2)
		}
		// A side that did not change takes the other side whole.
		if m, _ := json.Marshal(Merge(base, base, th)); string(m) != string(mustJSON(th)) && len(th.BlockedBy) < 2 {
			t.Fatalf("unchanged ours: %s, want %s", m, mustJSON(th))
		}
	})
}

func mustJSON(it Item) []byte {
	b, _ := json.Marshal(it)
	return b
}

// FuzzParseLease: a lease is either refused or positive and at most
// MaxLease.
func FuzzParseLease(f *testing.F) {
	for _, s := range []string{"30m", "-5m", "0", "1h30m", "9999999h", "1e3s", ".5s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseLease(s)
		if err == nil && (d <= 0 || d > MaxLease) {
			t.Fatalf("ParseLease(%q) = %v accepted", s, d)
		}
	})
}
