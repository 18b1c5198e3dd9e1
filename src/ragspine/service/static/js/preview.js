// The source preview dialog: the facts stored at a cell, or the passage at a locator, as
// /v1/sources/preview returns them for the current key.
import { getJson } from "./api.js";
import { byId, el } from "./dom.js";
import { formatNumber, lang, periodLabel, t } from "./i18n.js";

function factsTable(facts) {
  const columns = ["metric", "entity", "period", "channel", "value"];
  const head = columns.map((k) => el("th", { text: t(k) }));
  const rows = facts.map((f) =>
    el(
      "tr",
      {},
      el("td", { text: f.metric_display || f.metric }),
      el("td", { text: f.entity_display || f.entity }),
      el("td", { text: periodLabel(f.period_type, f.period) }),
      el("td", { text: f.channel_display || f.channel }),
      el("td", { class: "preview-value", text: f.value_display || formatNumber(f.value) }),
    ),
  );
  return el(
    "div",
    { class: "table-wrap" },
    el(
      "table",
      {},
      el("caption", { text: t("facts") }),
      el("thead", {}, el("tr", {}, head)),
      el("tbody", {}, rows),
    ),
  );
}

function passages(list) {
  return el(
    "section",
    {},
    el("h3", { text: t("passages") }),
    list.map((p) =>
      el(
        "div",
        {},
        p.title ? el("h4", { text: p.title }) : null,
        el("p", { class: "passage", text: p.text }),
      ),
    ),
  );
}

export async function openPreview(doc, locator, opener) {
  const dialog = byId("preview-dialog");
  const body = byId("preview-body");
  byId("preview-where").textContent = `${doc} · ${locator}`;
  body.replaceChildren(el("p", { class: "status", text: "…" }));
  dialog.addEventListener("close", () => opener?.focus(), { once: true });
  if (!dialog.open) dialog.showModal();
  try {
    const found = await getJson(
      `/v1/sources/preview?${new URLSearchParams({ doc, locator, lang: lang() })}`,
    );
    body.replaceChildren(
      found.facts.length ? factsTable(found.facts) : "",
      found.passages.length ? passages(found.passages) : "",
    );
  } catch (error) {
    body.replaceChildren(
      el("p", {
        class: "error",
        text: error.status === 404 ? t("noPreview") : t("failed", error.message),
      }),
    );
  }
}

export function installPreview() {
  const dialog = byId("preview-dialog");
  byId("preview-close").addEventListener("click", () => dialog.close());
}

// A button naming a source (document · locator) that opens its preview.
export function sourceChip(source) {
  const chip = el("button", {
    type: "button",
    class: "chip",
    text: `${source.doc} · ${source.locator}`,
    "aria-label": t("openSource", source.doc, source.locator),
  });
  chip.addEventListener("click", () => openPreview(source.doc, source.locator, chip));
  return chip;
}
