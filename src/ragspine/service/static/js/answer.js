// One answer card, filled from the /v1/ask/stream events as they arrive: badges and the
// kind-specific blocks from `meta`, the text from each `part`, the source chips from `sources`.
import { barChart, comparable } from "./chart.js";
import { renderPart } from "./citations.js";
import { el } from "./dom.js";
import { formatNumber, t } from "./i18n.js";
import { sourceChip } from "./preview.js";

// The question narrowed by one of the engine's options: its code when it names one
// ("香港（ACME_HK）" → ACME_HK, "Revenue (REVENUE)" → REVENUE), else the option as shown.
export function narrowed(question, option) {
  const code = /[（(]([A-Za-z0-9_]+)[)）]\s*$/.exec(option);
  return `${question.trim()} ${code ? code[1] : option}`;
}

function slots(...parts) {
  return parts.join(" · ");
}

function optionButtons(question, options, reask) {
  return el(
    "div",
    { class: "options" },
    options.map((option) =>
      el("button", {
        type: "button",
        class: "option",
        text: option,
        onclick: () => reask(narrowed(question, option)),
      }),
    ),
  );
}

// A found value as the service shows it (value_display: "US$ 2,850 m", "2,850 百万美元"), the
// exact value and codes kept in the title for whoever needs them.
function factCard(fact) {
  const shown = fact.value_display || formatNumber(fact.value);
  const what = slots(
    fact.metric_display || fact.metric_code,
    fact.entity_display || fact.entity,
    fact.period_label,
  );
  return el(
    "div",
    { class: "fact", title: `${fact.metric_code} · ${fact.entity} · ${fact.value} ${fact.unit}` },
    el("div", { class: "value", text: shown }),
    el("div", { class: "what", text: what }),
    sourceChip(fact.source),
  );
}

// What a not-found or unrecognised result asked for: its slots, or the unread parameter.
function missingText(result) {
  const asked = result.normalized;
  return asked
    ? slots(
        asked.metric_display || asked.metric_code,
        asked.entity_display || asked.entity,
        asked.period_label,
        asked.channel_display || asked.channel,
      )
    : `${result.param}: ${result.raw}`;
}

function missingList(results) {
  const missing = results.filter((r) => r.status === "not_found" || r.status === "unrecognized");
  return el("ul", { class: "missing" }, missing.map((r) => el("li", { text: missingText(r) })));
}

function badges(meta) {
  const routes = t("routes");
  const kinds = t("kinds");
  return el(
    "div",
    { class: "badges" },
    el("span", { class: "badge route", text: routes[meta.route] || meta.route }),
    el("span", { class: "badge kind", text: kinds[meta.answer_kind] || meta.answer_kind }),
    meta.cache?.hit
      ? el("span", { class: "badge faq", text: t("faq", meta.cache.faq_id, meta.cache.version) })
      : null,
  );
}

function notice(kindClass, label, ...children) {
  return el("div", { class: `notice ${kindClass}` }, el("strong", { text: label }), ...children);
}

export class AnswerCard {
  constructor(question, reask) {
    this.question = question;
    this.reask = reask;
    this.note = "";
    this.status = el("p", { class: "status", role: "status", text: t("asking") });
    this.lead = el("div", { class: "lead" });
    this.text = el("div", { class: "text" });
    this.target = this.text;
    this.sources = el("div", { class: "sources", hidden: true });
    this.node = el(
      "article",
      { class: "answer", "aria-busy": "true" },
      el("p", { class: "q", text: question }),
      this.status,
      this.lead,
      this.text,
      this.sources,
    );
  }

  meta(meta) {
    const kind = meta.answer_kind;
    const clar = meta.clarification || {};
    const results = meta.tool_results || [];
    this.node.classList.add(`kind-${kind}`, `route-${meta.route}`);
    this.node.dataset.kind = kind;
    this.node.insertBefore(badges(meta), this.status);
    if (clar.mode === "answer_with_assumptions" && clar.assumption_note) {
      this.note = clar.assumption_note;
      this.lead.append(
        notice("assumption", t("assumption"), el("p", { text: this.note }),
          clar.narrowing_options.length ? el("span", { text: t("narrowWith") }) : null,
          optionButtons(this.question, clar.narrowing_options, this.reask)),
      );
    }
    const found = results.filter((r) => r.status === "found");
    if (found.length) this.lead.append(el("div", { class: "facts" }, found.map(factCard)));
    const chart = comparable(results);
    if (chart) this.lead.append(barChart(chart));
    this.blockFor(kind, clar, results);
  }

  // Clarifications, refusals and not-found answers get a box of their own holding the text.
  blockFor(kind, clar, results) {
    let box = null;
    if (kind === "clarify") {
      this.target = el("div");
      box = notice("clarify-box", t("clarify"), this.target,
        optionButtons(this.question, clar.narrowing_options || [], this.reask));
    } else if (kind === "refused") {
      this.target = el("div");
      box = notice("refusal", t("refused"), this.target);
    } else if (kind === "not_found" || kind === "unrecognized") {
      this.target = el("div");
      box = notice("not-found", t("notFound"), missingList(results), this.target);
    } else if (kind === "partial") {
      box = notice("not-found", t("notFoundWhat"), missingList(results));
    } else if (kind === "no_context" || kind === "degraded") {
      this.target = el("div");
      box = notice("not-found", t("kinds")[kind], this.target);
    }
    if (box) this.lead.append(box);
  }

  part(part) {
    let text = part.text;
    // The assumption note opens the answer's text; the banner already shows it.
    if (this.note && text.startsWith(this.note)) {
      text = text.slice(this.note.length).replace(/^\n/, "");
    }
    if (text) this.target.append(renderPart(text));
  }

  showSources(sources) {
    if (!sources.length) return;
    this.sources.hidden = false;
    this.sources.append(el("h3", { text: t("sources") }), el("div", {}, sources.map(sourceChip)));
  }

  done() {
    this.status.remove();
    this.node.setAttribute("aria-busy", "false");
  }

  fail(message) {
    this.status.textContent = t("failed", message);
    this.status.classList.add("error");
    this.node.setAttribute("aria-busy", "false");
    this.node.dataset.kind = "error";
  }

  onEvent(name, data) {
    if (name === "meta") this.meta(data);
    else if (name === "part") this.part(data);
    else if (name === "sources") this.showSources(data.sources);
    else if (name === "done") this.done();
  }
}
