// One paragraph of an answer as the page shows it: a narrative paragraph's "[n]" markers become
// buttons opening the cited passage, and its "来源：/Sources:" list becomes numbered chips.
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { openPreview, sourceChip } from "./preview.js";

const SOURCES_HEADING = /^(来源：|Sources:)$/;
const CITATION_LINE = /^\[(\d+)\]\s+(.+?) · (.+)$/;
const HEADINGS = /^(归因分析：|Attribution analysis:)$/;

export function parseCitations(text) {
  const lines = text.split("\n");
  const at = lines.findIndex((line) => SOURCES_HEADING.test(line.trim()));
  if (at < 0) return { body: text, citations: [] };
  const citations = [];
  for (const line of lines.slice(at + 1)) {
    const match = CITATION_LINE.exec(line.trim());
    if (match) citations.push({ n: match[1], doc: match[2], locator: match[3] });
  }
  return { body: lines.slice(0, at).join("\n"), citations };
}

function citeButton(citation) {
  const button = el("button", {
    type: "button",
    class: "cite",
    text: `[${citation.n}]`,
    "aria-label": t("cite", citation.n, citation.doc, citation.locator),
  });
  button.addEventListener("click", () => openPreview(citation.doc, citation.locator, button));
  return button;
}

function bodyWithMarkers(body, byNumber) {
  const paragraph = el("p");
  let last = 0;
  for (const match of body.matchAll(/\[(\d+)\]/g)) {
    const citation = byNumber.get(match[1]);
    if (!citation) continue;
    paragraph.append(body.slice(last, match.index), citeButton(citation));
    last = match.index + match[0].length;
  }
  paragraph.append(body.slice(last));
  return paragraph;
}

export function renderPart(text) {
  const { body, citations } = parseCitations(text);
  const lines = body.split("\n");
  const heading = HEADINGS.test(lines[0].trim()) ? el("h3", { text: lines.shift().trim() }) : null;
  const byNumber = new Map(citations.map((c) => [c.n, c]));
  const list = citations.length
    ? el(
        "ol",
        { class: "citations", "aria-label": t("citations") },
        citations.map((c) => el("li", {}, `[${c.n}] `, sourceChip(c))),
      )
    : null;
  return el("div", { class: "part" }, heading, bodyWithMarkers(lines.join("\n"), byNumber), list);
}
