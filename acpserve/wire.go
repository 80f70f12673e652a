package acpserve

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"
)

// This file holds the pure translations between todosh and ACP: the list
// as a plan, the command list, the editor's prompt as text. No I/O.

// PlanEntries is the list as an ACP plan: one entry per item, in order.
// ACP knows no subtasks and no cancelled status, so an item's subtasks
// show as a count after its text and a cancelled item is a completed
// entry marked "(cancelled)". The priority is the item's own (llxprt's
// "priority" field) when it is one ACP knows, else medium, which ACP
// requires.
func PlanEntries(todos []todolist.Todo) []acp.PlanEntry {
	entries := make([]acp.PlanEntry, 0, len(todos))
	for _, t := range todos {
		e := acp.PlanEntry{Content: t.Content, Priority: priority(t), Status: acp.PlanEntryStatusPending}
		switch t.Status {
		case todolist.InProgress:
			e.Status = acp.PlanEntryStatusInProgress
		case todolist.Completed:
			e.Status = acp.PlanEntryStatusCompleted
		case todolist.Cancelled:
			e.Status, e.Content = acp.PlanEntryStatusCompleted, "(cancelled) "+t.Content
		}
		if n := len(t.Subtasks); n > 0 {
			done := 0
			for _, s := range t.Subtasks {
				if s.Status == todolist.Completed {
					done++
				}
			}
			e.Content += fmt.Sprintf(" (%d/%d subtasks)", done, n)
		}
		entries = append(entries, e)
	}
	return entries
}

// priority reads an item's priority field.
func priority(t todolist.Todo) acp.PlanEntryPriority {
	var p string
	if raw, ok := t.Extra["priority"]; ok && json.Unmarshal(raw, &p) == nil {
		switch q := acp.PlanEntryPriority(strings.ToLower(p)); q {
		case acp.PlanEntryPriorityHigh, acp.PlanEntryPriorityMedium, acp.PlanEntryPriorityLow:
			return q
		}
	}
	return acp.PlanEntryPriorityMedium
}

// planKey identifies a plan as the editor would see it, so a list that
// changed in ways a plan cannot show (an id, evidence) sends nothing.
func planKey(entries []acp.PlanEntry) string {
	b, _ := json.Marshal(entries)
	return string(b)
}

// TodoCommand is the name of todosh's own command in the editor's list.
const TodoCommand = "todo"

// MergeCommands is the command list the editor gets: todosh's todo
// command first, with subs (its subcommands) as the input hint, then the
// inner agent's commands but any of its own called todo, which todosh
// answers. The inner agent's order is kept.
func MergeCommands(inner []acp.AvailableCommand, subs []string) []acp.AvailableCommand {
	hint := "show, or a subcommand: " + strings.Join(subs, ", ")
	out := []acp.AvailableCommand{{
		Name:        TodoCommand,
		Description: "todosh's todo list for this session, kept on disk (answered by todosh, not the model)",
		Input:       &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: hint}},
	}}
	for _, c := range inner {
		if c.Name != TodoCommand {
			out = append(out, c)
		}
	}
	return out
}

// todoSubcommands are the /todo subcommands from the command table's
// completion of "/todo ", without duplicates, sorted.
func todoSubcommands(complete func(string) []string) []string {
	seen := map[string]bool{}
	var subs []string
	for _, c := range complete("/" + TodoCommand + " ") {
		s := strings.TrimSpace(strings.TrimPrefix(c, "/"+TodoCommand+" "))
		if s != "" && !seen[s] {
			seen[s] = true
			subs = append(subs, s)
		}
	}
	sort.Strings(subs)
	return subs
}

// IsTodoCommand reports whether a prompt is a /todo command todosh
// answers itself: one line that is /todo or starts with "/todo ". A
// prompt of several lines is always for the agent, as in the shell.
func IsTodoCommand(text string) bool {
	line := strings.TrimSpace(text)
	if strings.Contains(line, "\n") {
		return false
	}
	return line == "/"+TodoCommand || strings.HasPrefix(line, "/"+TodoCommand+" ") || strings.HasPrefix(line, "/"+TodoCommand+"\t")
}

// PromptText is the editor's prompt as the one text an agent.Turn takes.
// Text blocks are joined as they are; a resource link becomes a line
// naming it, an embedded text resource (embeddedContext, which todosh
// advertises) its text under a line naming its URI; an image, audio or a
// binary resource (not advertised) a line saying it was left out, so
// the agent knows something was there.
func PromptText(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			l := b.ResourceLink
			parts = append(parts, fmt.Sprintf("\n[%s](%s)\n", l.Name, l.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("\nContents of %s:\n%s\n", r.Uri, fence(r.Text)))
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			parts = append(parts, fmt.Sprintf("\n(binary resource %s left out)\n", b.Resource.Resource.BlobResourceContents.Uri))
		case b.Image != nil:
			parts = append(parts, "\n(an image was left out: todosh passes text only)\n")
		case b.Audio != nil:
			parts = append(parts, "\n(audio was left out: todosh passes text only)\n")
		}
	}
	return strings.TrimSpace(strings.Join(parts, ""))
}

// LeftOut names what PromptText left out of a prompt, for the person:
// "an image", "audio", "a binary resource".
func LeftOut(blocks []acp.ContentBlock) []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range blocks {
		what := ""
		switch {
		case b.Image != nil:
			what = "an image"
		case b.Audio != nil:
			what = "audio"
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			what = "a binary resource"
		}
		if what != "" && !seen[what] {
			seen[what] = true
			out = append(out, what)
		}
	}
	return out
}

// fence puts text in a fenced code block whose fence no line of the text
// can close.
func fence(text string) string {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f + "\n" + strings.TrimSuffix(text, "\n") + "\n" + f
}
