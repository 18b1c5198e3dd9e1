// A bar chart of the found values an answer compares (periods or entities of one metric). Each
// row is a button opening its bar's source: the label (the profile's name, never a code) wraps
// onto as many lines as it needs and is never clipped; the value is shown as the service wrote
// it ("US$ 2,850 m"). Plain HTML rows, so the layout reflows at any width.
import { el } from "./dom.js";
import { formatNumber, t } from "./i18n.js";
import { openPreview } from "./preview.js";

// The found facts worth a chart: two or more of one metric and unit that differ in period or
// entity. Periods are put in time order; entities keep the answer's order.
export function comparable(toolResults) {
  const found = toolResults.filter((r) => r.status === "found" && typeof r.value === "number");
  if (found.length < 2) return null;
  const { metric_code: metric, unit } = found[0];
  if (!found.every((r) => r.metric_code === metric && r.unit === unit)) return null;
  const oneEntity = found.every((r) => r.entity === found[0].entity);
  const onePeriod = found.every((r) => r.period_label === found[0].period_label);
  const entityName = (r) => r.entity_display || r.entity;
  const bars = found.map((r) => ({
    label: oneEntity ? r.period_label : onePeriod ? entityName(r) : `${entityName(r)} ${r.period_label}`,
    value: r.value,
    shown: r.value_display || formatNumber(r.value),
    source: r.source,
  }));
  if (new Set(bars.map((b) => b.label)).size !== bars.length) return null;
  if (oneEntity) bars.sort((a, b) => a.label.localeCompare(b.label));
  return {
    metric: found[0].metric_display || metric,
    unit: found[0].unit_display ?? unit,
    bars,
  };
}

function bar(item, largest) {
  const fill = el("span", { class: "bar" });
  // Set through the CSSOM (the page's CSP allows no inline style attribute); the longest bar
  // takes most of the track, leaving room for its value right after it.
  fill.style.width = `${Math.max(1, (Math.abs(item.value) / largest) * 70)}%`;
  const row = el(
    "button",
    {
      type: "button",
      class: "bar-link",
      title: `${item.label}: ${item.shown} · ${item.source.doc} · ${item.source.locator}`,
      "aria-label": t("chartBar", item.label, item.shown),
      onclick: () => openPreview(item.source.doc, item.source.locator, row),
    },
    el("span", { class: "bar-label", text: item.label }),
    el("span", { class: "bar-track" }, fill, el("span", { class: "bar-value", text: item.shown })),
  );
  return row;
}

export function barChart(data) {
  const largest = Math.max(...data.bars.map((b) => Math.abs(b.value))) || 1;
  const title = data.unit ? t("chartTitle", data.metric, data.unit) : data.metric;
  return el(
    "figure",
    { class: "chart" },
    el(
      "div",
      { class: "bars", role: "group", "aria-label": title },
      data.bars.map((item) => bar(item, largest)),
    ),
    el("figcaption", { text: title }),
  );
}
