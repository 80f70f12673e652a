package todostore

// Turn-end usage reports (issue 26). Claude Code's stream and the
// OpenAI-compatible API report each model request's usage as it is spent,
// so a report is charged to the item in progress when it is written
// (AttributeTo). Codex, Gemini and an ACP agent report a turn's tokens
// only when the turn ends, when the item in progress is the one the turn
// ended on, not the ones it worked on. Such a report (WorkLine.Since set)
// is charged by this rule instead:
//
//   - it is split over the items in progress during the turn: the one in
//     progress when the turn began (Began) and the one each of the turn's
//     tool calls was attributed to (Item, or Next when none was in
//     progress, as a receipt takes it) — one share for the first, one
//     share for each call, so an item that took more of the turn's
//     requests takes more of its tokens;
//   - a turn with neither is charged to the item in progress when it ended
//     (Item), and with none, unattributed.
//
// The shares add up to the report exactly: each item takes its share
// rounded down, and what rounding leaves goes a token at a time to the
// items in the order they first appear in the turn.

// ChargeTurns returns lines with each turn-end usage report replaced by
// one usage line per item it is charged to (see the rule above); the
// other lines are returned as they are. Pure; lines is not changed.
func ChargeTurns(lines []WorkLine) []WorkLine {
	return chargeFrom(lines, 0)
}

// chargeFrom is ChargeTurns of lines[from:], the lines before from read
// as what came before them: a report's charges depend only on the lines
// written before it, so the cache charges only the lines a read added.
func chargeFrom(lines []WorkLine, from int) []WorkLine {
	split := false
	for _, l := range lines[from:] {
		if !l.Since.IsZero() && (l.In != 0 || l.Out != 0) {
			split = true
			break
		}
	}
	if !split {
		return lines[from:]
	}
	out := make([]WorkLine, 0, len(lines)-from+8)
	for i := from; i < len(lines); i++ {
		l := lines[i]
		if l.Since.IsZero() || (l.In == 0 && l.Out == 0) {
			out = append(out, l)
			continue
		}
		uids, weights := turnShares(lines[:i], l)
		if len(uids) == 0 {
			if l.Item != "" {
				uids, weights = []string{l.Item}, []int64{1}
			} else {
				report := l
				report.Since, report.Began = timeZero, ""
				out = append(out, report)
				continue
			}
		}
		ins := splitTokens(l.In, weights)
		outs := splitTokens(l.Out, weights)
		for k, uid := range uids {
			if ins[k] == 0 && outs[k] == 0 {
				continue
			}
			out = append(out, WorkLine{At: l.At, Item: uid, In: ins[k], Out: outs[k], Sees: l.Sees})
		}
	}
	return out
}

// timeZero is the zero time, which clears a line's Since.
var timeZero = WorkLine{}.Since

// turnShares is the items the turn-end report r is charged to, with their
// weights, in the order they first appear: r.Began, then the items the
// turn's tool calls among before (the lines written before r) were
// attributed to.
func turnShares(before []WorkLine, r WorkLine) (uids []string, weights []int64) {
	at := map[string]int{}
	add := func(uid string) {
		if uid == "" {
			return
		}
		if k, ok := at[uid]; ok {
			weights[k]++
			return
		}
		at[uid] = len(uids)
		uids = append(uids, uid)
		weights = append(weights, 1)
	}
	add(r.Began)
	// The turn's lines are the last ones before r, from r.Since on.
	first := len(before)
	for first > 0 && !before[first-1].At.Before(r.Since) {
		first--
	}
	for _, l := range before[first:] {
		if l.Tool == "" || !l.Since.IsZero() {
			continue
		}
		if l.Item != "" {
			add(l.Item)
		} else {
			add(l.Next)
		}
	}
	return uids, weights
}

// splitTokens splits n in proportion to weights (all positive), the shares
// adding up to n exactly: each rounded down, the rest a token at a time
// from the first. n is at most MaxTokens and the weights at most a work
// log's lines, so n*weight cannot overflow.
func splitTokens(n int64, weights []int64) []int64 {
	var sum int64
	for _, w := range weights {
		sum += w
	}
	shares := make([]int64, len(weights))
	left := n
	for k, w := range weights {
		shares[k] = n * w / sum
		left -= shares[k]
	}
	for k := 0; left > 0; k = (k + 1) % len(shares) {
		shares[k]++
		left--
	}
	return shares
}
