// The Documents tab: drag-and-drop upload, one progress bar per ingestion job with its
// per-file results, and the review queue with approve / reject / approve-with-correction, and
// "map to …" where an item names an unmapped label (approve is offered only where it can work).
import { getJson, postForm, postJson } from "./api.js";
import { byId, el } from "./dom.js";
import { formatNumber, periodLabel, t } from "./i18n.js";
import { mapControls } from "./review_map.js";

const POLL_MS = 400;

function resultsTable(results) {
  const columns = ["file", "outcome", "facts", "chunks", "review", "warnings", "error"];
  const labels = columns.map((c) => t(c));
  const cells = (r) => [
    r.name,
    r.outcome,
    String(r.facts),
    String(r.chunks),
    String(r.review),
    r.warnings.join("; "),
    r.error,
  ];
  return el(
    "div",
    { class: "table-wrap" },
    el(
      "table",
      { class: "results" },
      el("thead", {}, el("tr", {}, labels.map((label) => el("th", { text: label })))),
      el(
        "tbody",
        {},
        results.map((r) =>
          el(
            "tr",
            { class: `outcome-${r.outcome.replace(/\s+/g, "-")}` },
            // Each cell names its column, for the stacked layout on a narrow screen.
            cells(r).map((text, i) => el("td", { "data-label": labels[i], text })),
          ),
        ),
      ),
    ),
  );
}

class JobCard {
  constructor(names) {
    this.title = names.join(", ");
    this.bar = el("progress", {
      max: "1",
      value: "0",
      "aria-label": t("progressLabel", this.title),
    });
    this.state = el("p", { class: "job-state", role: "status", text: t("uploading") });
    this.results = el("div");
    this.node = el(
      "div",
      { class: "job" },
      el("strong", { text: this.title }),
      this.bar,
      this.state,
      this.results,
    );
  }

  show(job) {
    this.node.dataset.state = job.state;
    this.node.className = `job job-state-${job.state}`;
    this.bar.value = job.progress;
    const state = t("jobState")[job.state] || job.state;
    const counted = `${state} · ${job.files_done}/${job.files_total}`;
    this.state.textContent = job.error ? `${counted} · ${job.error}` : counted;
    this.results.replaceChildren(job.results.length ? resultsTable(job.results) : "");
  }
}

async function follow(card, jobId) {
  for (;;) {
    const job = await getJson(`/v1/jobs/${encodeURIComponent(jobId)}`);
    card.show(job);
    if (job.state === "done" || job.state === "failed") return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

// The tab's jobs (id and file names), so a reload shows them again and follows the unfinished.
const JOBS = "ragspine.jobs";
const JOBS_KEPT = 20;

function keptJobs() {
  try {
    return JSON.parse(sessionStorage.getItem(JOBS) || "[]");
  } catch {
    return [];
  }
}

function keepJob(jobId, names) {
  const kept = [{ jobId, names }, ...keptJobs()].slice(0, JOBS_KEPT);
  sessionStorage.setItem(JOBS, JSON.stringify(kept));
}

async function watch(card, work) {
  try {
    await work();
  } catch (error) {
    card.node.dataset.state = "error";
    card.state.textContent = t("failed", error.message);
    card.state.classList.add("error");
  }
}

async function upload(files) {
  if (!files.length) return;
  const names = [...files].map((f) => f.name);
  const card = new JobCard(names);
  byId("jobs").prepend(card.node);
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  // Hidden sheets, rows and columns are skipped and counted unless asked for; read, a hidden
  // figure never outranks a visible one (docs/ingestion.md).
  if (byId("include-hidden").checked) form.append("include_hidden", "true");
  await watch(card, async () => {
    const { job_id: jobId } = await postForm("/v1/ingest/jobs", form);
    card.node.dataset.job = jobId;
    keepJob(jobId, names);
    await follow(card, jobId);
    await loadReview();
  });
}

function resumeJobs() {
  for (const { jobId, names } of keptJobs().reverse()) {
    const card = new JobCard(names);
    card.node.dataset.job = jobId;
    byId("jobs").prepend(card.node);
    watch(card, () => follow(card, jobId));
  }
}

function installDrop() {
  const zone = byId("drop-zone");
  const input = byId("files");
  input.addEventListener("change", () => {
    upload([...input.files]);
    input.value = "";
  });
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    upload([...event.dataTransfer.files]);
  });
}

// --- review ----------------------------------------------------------------------------------

function proposal(item) {
  const p = item.proposed;
  if (!p) return null;
  const period = periodLabel(p.period_type, p.period);
  return el(
    "p",
    { class: "proposed" },
    `${t("proposed")} ${p.metric_code} · ${p.entity} · ${period} · ${p.channel}: `,
    el("strong", { text: `${formatNumber(p.value)} ${p.unit}` }),
  );
}

async function decide(item, verb, body) {
  const status = byId("review-status");
  try {
    await postJson(`/v1/review/${item.item_id}/${verb}`, body);
    status.textContent = t(verb === "approve" ? "approved" : "rejected", item.item_id);
    status.classList.remove("error");
  } catch (error) {
    status.textContent = t("failed", error.message);
    status.classList.add("error");
  }
  await loadReview();
}

function button(kind, text, onclick) {
  return el("button", { type: "button", class: kind, text, onclick });
}

async function mapped(message, failed) {
  const status = byId("review-status");
  status.textContent = message;
  status.classList.toggle("error", failed);
  if (!failed) await loadReview();
}

function actions(item) {
  if (item.state !== "open") return null;
  const can = item.actions || [];
  const inputId = `correct-${item.item_id}`;
  const input = el("input", { id: inputId, type: "number", step: "any", inputmode: "decimal" });
  const approving = can.includes("approve")
    ? [
        button("approve", t("approve"), () => decide(item, "approve", {})),
        button("reject", t("reject"), () => decide(item, "reject", {})),
        el("label", { for: inputId, text: t("correctLabel") }),
        input,
        button("approve-corrected", t("approveCorrected"), () => {
          if (input.value === "" || !input.checkValidity()) return input.focus();
          return decide(item, "approve", { correct: Number(input.value) });
        }),
      ]
    : [button("reject", t("reject"), () => decide(item, "reject", {}))];
  return el(
    "div",
    { class: "review-actions" },
    can.includes("map") ? mapControls(item, mapped) : null,
    ...approving,
  );
}

function reviewItem(item) {
  return el(
    "li",
    { class: "review-item", "data-item": String(item.item_id), "data-state": item.state },
    el("div", { class: "badges" },
      el("span", { class: "badge", text: `#${item.item_id}` }),
      el("span", { class: "badge", text: item.reason }),
      el("span", { class: "badge", text: item.state }),
      el("span", { class: "badge", text: item.sensitivity })),
    el("p", { class: "where", text: `${item.doc} · ${item.locator}` }),
    el("p", { class: "detail", text: item.detail }),
    proposal(item),
    item.corrected_value !== null
      ? el("p", { class: "corrected", text: t("corrected", formatNumber(item.corrected_value)) })
      : null,
    actions(item),
  );
}

export async function loadReview() {
  const state = byId("review-state").value;
  const list = byId("review-list");
  try {
    const { items } = await getJson(`/v1/review?state=${encodeURIComponent(state)}`);
    list.replaceChildren(...items.map(reviewItem));
    list.dataset.loaded = "true";
    if (!items.length) list.append(el("li", { class: "status", text: t("emptyReview") }));
  } catch (error) {
    list.replaceChildren(el("li", { class: "error", text: t("failed", error.message) }));
  }
}

export function installDocuments() {
  installDrop();
  resumeJobs();
  byId("review-state").addEventListener("change", loadReview);
  byId("review-refresh").addEventListener("click", loadReview);
}
