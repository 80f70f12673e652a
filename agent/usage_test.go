package agent

import (
	"reflect"
	"strings"
	"testing"
)

// meterStep is one report given to a UsageMeter and what must come out.
type meterStep struct {
	how    string // add, to, atleast
	u      Usage
	want   *Usage // the EventUsage passed on; nil: none
	notice bool   // a notice comes out
}

func TestUsageMeter(t *testing.T) {
	u := func(in, out int64) *Usage { return &Usage{Input: in, Output: out} }
	for _, tc := range []struct {
		name  string
		steps []meterStep
		sent  Usage
	}{
		{"deltas add up", []meterStep{{how: "add", u: *u(100, 10), want: u(100, 10)}, {how: "add", u: *u(5, 0), want: u(5, 0)}}, *u(105, 10)},
		{"nothing reported is no event", []meterStep{{how: "add", u: *u(0, 0)}}, Usage{}},
		{"totals become deltas", []meterStep{{how: "to", u: *u(100, 10), want: u(100, 10)}, {how: "to", u: *u(250, 30), want: u(150, 20)}, {how: "to", u: *u(250, 30)}}, *u(250, 30)},
		{"a total that goes backwards: one notice, ignored", []meterStep{{how: "to", u: *u(100, 10), want: u(100, 10)}, {how: "to", u: *u(90, 10), notice: true},
			{how: "to", u: *u(80, 10)}, {how: "to", u: *u(120, 12), want: u(20, 2)}}, *u(120, 12)},
		{"negative: one notice, never again", []meterStep{{how: "add", u: *u(-1, 5), notice: true}, {how: "add", u: *u(-1, 5)}, {how: "add", u: *u(3, 4), want: u(3, 4)}}, *u(3, 4)},
		{"above 10^12", []meterStep{{how: "add", u: *u(MaxUsage+1, 0), notice: true}, {how: "to", u: *u(0, MaxUsage+1)}}, Usage{}},
		{"a sum above 10^12", []meterStep{{how: "add", u: *u(MaxUsage, 0), want: u(MaxUsage, 0)}, {how: "add", u: *u(1, 0), notice: true}}, *u(MaxUsage, 0)},
		{"at least: the rest of a total, each count on its own", []meterStep{{how: "add", u: *u(120, 1), want: u(120, 1)}, {how: "add", u: *u(120, 1), want: u(120, 1)},
			{how: "atleast", u: *u(200, 80), want: u(0, 78)}, {how: "atleast", u: *u(100, 10)}}, *u(240, 80)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := UsageMeter{Name: "fake"}
			for i, st := range tc.steps {
				var ev Event
				var ok bool
				switch st.how {
				case "add":
					ev, ok = m.Add(st.u)
				case "to":
					ev, ok = m.To(st.u)
				case "atleast":
					ev, ok = m.AtLeast(st.u)
				}
				var evs []Event
				if ok {
					evs = append(evs, ev)
				}
				var got *Usage
				notice := false
				for _, ev := range evs {
					switch ev.Kind {
					case EventUsage:
						got = ev.Usage
					case EventNotice:
						notice = true
						if !strings.HasPrefix(ev.Text, "fake: ignored: ") {
							t.Errorf("step %d: notice %q", i, ev.Text)
						}
					}
				}
				if !reflect.DeepEqual(got, st.want) || notice != st.notice {
					t.Errorf("step %d (%s %+v): usage %+v notice %v, want %+v notice %v", i, st.how, st.u, got, notice, st.want, st.notice)
				}
			}
			if m.sent != tc.sent {
				t.Errorf("sent %+v, want %+v", m.sent, tc.sent)
			}
		})
	}
}

func TestUsageCount(t *testing.T) {
	for raw, want := range map[string]int64{"": 0, "null": 0, " 12 ": 12, "0": 0, "-3": -3, "1.5": -1, "2.0": 2, "1e3": 1000, "1e13": MaxUsage + 1,
		"99999999999999999999": MaxUsage + 1, "-1e300": -1, `"7"`: -1, "-": -1, "true": -1, "{}": -1} {
		if got := UsageCount([]byte(raw)); got != want {
			t.Errorf("UsageCount(%q) = %d, want %d", raw, got, want)
		}
	}
}
