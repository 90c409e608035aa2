package jirafake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// node is an ADF node as the fake reads one.
type node struct {
	Type    string         `json:"type"`
	Attrs   map[string]any `json:"attrs,omitempty"`
	Content []node         `json:"content,omitempty"`
	Text    string         `json:"text,omitempty"`
	Marks   []struct {
		Type  string         `json:"type"`
		Attrs map[string]any `json:"attrs,omitempty"`
	} `json:"marks,omitempty"`
}

type document struct {
	Content []node `json:"content"`
}

// Markdown renders a stored ADF document back to Markdown, as a person
// reads the comment: headings, paragraphs (hard breaks as line ends),
// strong, em, code, strike, links, lists, task lists, code blocks, quotes
// and rules. Tests and scripts, which speak Markdown, read comments with
// it.
func Markdown(raw json.RawMessage) string {
	var doc document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "unreadable: " + err.Error()
	}
	return blocks(doc.Content, "")
}

func blocks(ns []node, indent string) string {
	var out []string
	for _, n := range ns {
		out = append(out, block(n, indent))
	}
	return strings.Join(out, "\n\n")
}

func block(n node, indent string) string {
	switch n.Type {
	case "heading":
		level := int(n.Attrs["level"].(float64))
		return strings.Repeat("#", level) + " " + inline(n.Content)
	case "codeBlock":
		lang, _ := n.Attrs["language"].(string)
		return "```" + lang + "\n" + inline(n.Content) + "\n```"
	case "rule":
		return "---"
	case "blockquote":
		return "> " + strings.ReplaceAll(blocks(n.Content, ""), "\n", "\n> ")
	case "bulletList", "orderedList", "taskList":
		var items []string
		for i, it := range n.Content {
			marker := "- "
			switch {
			case n.Type == "orderedList":
				marker = fmt.Sprintf("%d. ", i+1)
			case it.Type == "taskItem" && it.Attrs["state"] == "DONE":
				marker = "- [x] "
			case it.Type == "taskItem":
				marker = "- [ ] "
			}
			body := inline(it.Content)
			if it.Type == "listItem" {
				body = blocks(it.Content, indent+"  ")
			}
			items = append(items, indent+marker+body)
		}
		return strings.Join(items, "\n")
	}
	return inline(n.Content)
}

func inline(ns []node) string {
	var b strings.Builder
	for _, n := range ns {
		switch n.Type {
		case "hardBreak":
			b.WriteString("\n")
		case "text":
			s := n.Text
			for _, m := range n.Marks {
				switch m.Type {
				case "strong":
					s = "**" + s + "**"
				case "em":
					s = "_" + s + "_"
				case "code":
					s = "`" + s + "`"
				case "strike":
					s = "~~" + s + "~~"
				case "link":
					s = "[" + s + "](" + m.Attrs["href"].(string) + ")"
				}
			}
			b.WriteString(s)
		default:
			b.WriteString(block(n, ""))
		}
	}
	return b.String()
}
