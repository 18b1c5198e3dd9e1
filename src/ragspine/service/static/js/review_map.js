// "Map to …" on an unmapped_label review card: a searchable choice of the profile's codes (or a
// new metric code with its name); the server adds the label as an alias, closes the label's
// items and reads its documents again (POST /v1/review/{id}/map).
import { getJson, postJson } from "./api.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

const KINDS = ["metric", "entity", "channel", "new_metric"];
let codes = null; // the profile's codes, read once per page (and again after a mapping)

async function profileCodes() {
  if (codes === null) codes = getJson("/v1/profile/codes");
  try {
    return await codes;
  } catch (error) {
    codes = null;
    throw error;
  }
}

function optionsFor(kind, known) {
  const section = { metric: "metrics", entity: "entities", channel: "channels" }[kind];
  if (!section) return [];
  return known[section].map((c) =>
    el("option", { value: c.code, text: [c.name_zh, c.name_en].filter(Boolean).join(" / ") }),
  );
}

// The controls for one card; `done(message, failed)` reports the outcome and reloads the list.
export function mapControls(item, done) {
  const id = item.item_id;
  const listId = `map-codes-${id}`;
  const kind = el(
    "select",
    { id: `map-kind-${id}`, class: "map-kind", "aria-label": t("mapKind") },
    ...KINDS.map((k) => el("option", { value: k, text: t("mapKinds")[k] })),
  );
  const datalist = el("datalist", { id: listId });
  const code = el("input", {
    id: `map-code-${id}`,
    class: "map-code",
    list: listId,
    autocomplete: "off",
    placeholder: t("mapCodePlaceholder"),
    "aria-label": t("mapCode"),
  });
  const name = el("input", {
    id: `map-name-${id}`,
    class: "map-name",
    placeholder: t("mapNamePlaceholder"),
    "aria-label": t("mapName"),
    hidden: true,
  });
  const refill = async () => {
    name.hidden = kind.value !== "new_metric";
    try {
      datalist.replaceChildren(...optionsFor(kind.value, await profileCodes()));
    } catch (error) {
      done(t("failed", error.message), true);
    }
  };
  kind.addEventListener("change", refill);
  refill();
  const submit = async () => {
    const value = code.value.trim();
    if (!value) return code.focus();
    const body = { [kind.value]: value };
    if (kind.value === "new_metric") {
      if (!name.value.trim()) return name.focus();
      body.name = name.value.trim();
    }
    try {
      const out = await postJson(`/v1/review/${id}/map`, body);
      codes = null;
      done(t("mapped", item.label, out.code, out.alias, out.documents.length), false);
    } catch (error) {
      done(t("failed", error.message), true);
    }
  };
  return el(
    "div",
    { class: "map-controls" },
    kind,
    code,
    datalist,
    name,
    el("button", { type: "button", class: "map", text: t("mapTo"), onclick: submit }),
  );
}
