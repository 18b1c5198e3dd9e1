// A bar chart of the found values an answer compares (periods or entities of one metric),
// drawn as inline SVG; each bar is a link that opens the preview of its source.
import { el, svg } from "./dom.js";
import { formatNumber, t, unitLabel } from "./i18n.js";
import { openPreview } from "./preview.js";

const ROW = 34;
const LABEL = 96;
const WIDTH = 360;
const VALUE = 60;

// The found facts worth a chart: two or more of one metric and unit that differ in period or
// entity. Periods are put in time order; entities keep the answer's order.
export function comparable(toolResults) {
  const found = toolResults.filter((r) => r.status === "found" && typeof r.value === "number");
  if (found.length < 2) return null;
  const { metric_code: metric, unit } = found[0];
  if (!found.every((r) => r.metric_code === metric && r.unit === unit)) return null;
  const oneEntity = found.every((r) => r.entity === found[0].entity);
  const onePeriod = found.every((r) => r.period_label === found[0].period_label);
  const bars = found.map((r) => ({
    label: oneEntity ? r.period_label : onePeriod ? r.entity : `${r.entity} ${r.period_label}`,
    value: r.value,
    source: r.source,
  }));
  if (new Set(bars.map((b) => b.label)).size !== bars.length) return null;
  if (oneEntity) bars.sort((a, b) => a.label.localeCompare(b.label));
  return { metric, unit, bars };
}

function bar(item, index, scale) {
  const y = index * ROW;
  const width = Math.max(2, Math.abs(item.value) * scale);
  const shown = formatNumber(item.value);
  const link = svg(
    "a",
    {
      href: "#",
      class: "bar-link",
      role: "button",
      "aria-label": t("chartBar", item.label, shown),
      onclick: (event) => {
        event.preventDefault();
        openPreview(item.source.doc, item.source.locator, link);
      },
    },
    svg("title", { text: `${item.source.doc} · ${item.source.locator}` }),
    svg("text", { x: LABEL - 6, y: y + ROW / 2 + 4, "text-anchor": "end", text: item.label }),
    svg("rect", { class: "bar", x: LABEL, y: y + 6, width, height: ROW - 12, rx: 3 }),
    svg("text", { x: LABEL + width + 6, y: y + ROW / 2 + 4, text: shown }),
  );
  return link;
}

export function barChart(data) {
  const largest = Math.max(...data.bars.map((b) => Math.abs(b.value))) || 1;
  const scale = (WIDTH - LABEL - VALUE) / largest;
  const title = t("chartTitle", data.metric, unitLabel(data.unit) || data.unit);
  const height = data.bars.length * ROW;
  return el(
    "figure",
    { class: "chart" },
    svg(
      "svg",
      { viewBox: `0 0 ${WIDTH} ${height}`, role: "group", "aria-label": title },
      data.bars.map((item, index) => bar(item, index, scale)),
    ),
    el("figcaption", { text: title }),
  );
}
