// The page's own wording in Chinese and English. The language follows the last question (CJK
// characters mean Chinese) unless the user picks one; the choice lasts for the tab's session.
const CHOICE = "ragspine.lang";

const STRINGS = {
  zh: {
    tabAsk: "提问", tabDocs: "文档", language: "语言", langAuto: "跟随问题", keyButton: "API 密钥",
    questionLabel: "问题", askButton: "提问",
    questionPlaceholder: (example) => (example ? `例如：${example}` : "输入问题"),
    history: "本次提问", newConversation: "新对话", uploadTitle: "上传文档", dropLabel: "拖放文件到这里，或点击选择文件",
    includeHidden: "同时读取隐藏的工作表、行和列（可见内容优先）",
    reviewTitle: "复核队列", reviewState: "状态", stateOpen: "待复核", stateApproved: "已批准",
    stateRejected: "已驳回", stateAll: "全部", refresh: "刷新", keyTitle: "需要 API 密钥",
    keyHelp: "服务需要 API 密钥。密钥只保存在本标签页（sessionStorage）。",
    keyRejected: "密钥无效或已吊销，请重新输入。", keyLabel: "API 密钥", save: "保存",
    cancel: "取消", forgetKey: "清除密钥", previewTitle: "来源预览", close: "关闭",
    asking: "正在回答…", sources: "来源", assumption: "假设",
    narrowWith: "收窄为：", clarify: "需要澄清", refused: "已拒答", notFound: "查不到",
    notFoundWhat: "未找到：", citations: "引用",
    chartTitle: (metric, unit) => `${metric} 对比（${unit}）`,
    chartBar: (label, value) => `${label}：${value}，打开来源`,
    openSource: (doc, loc) => `打开来源预览：${doc} · ${loc}`,
    cite: (n, doc, loc) => `引用 ${n}：${doc} · ${loc}`,
    faq: (id, version) => `已审定的常见问题答案（${id}，版本 ${version}）`,
    facts: "单元格事实", passages: "段落", noPreview: "此来源不存在，或不在您的密钥权限内。",
    metric: "指标", entity: "实体", period: "期间", channel: "渠道", value: "数值",
    uploading: "正在上传…", job: "任务", file: "文件", outcome: "结果", chunks: "文本块",
    review: "待复核", warnings: "警告", error: "错误",
    jobState: { queued: "排队中", running: "处理中", done: "已完成", failed: "失败" },
    progressLabel: (name) => `${name} 的进度`,
    approve: "批准", reject: "驳回", correctLabel: "更正数值", approveCorrected: "按更正值批准",
    corrected: (v) => `更正值：${v}`,
    proposed: "建议事实：", approved: (id) => `复核项 ${id} 已批准`,
    rejected: (id) => `复核项 ${id} 已驳回`, emptyReview: "没有复核项。",
    mapTo: "映射到…", mapKind: "映射类型", mapCode: "代码", mapName: "新指标名称",
    mapCodePlaceholder: "搜索或输入代码", mapNamePlaceholder: "新指标名称",
    mapKinds: { metric: "指标", entity: "实体", channel: "渠道", new_metric: "新指标" },
    mapped: (label, code, alias, n) =>
      `“${label}”已映射到 ${code}（别名“${alias}”），重新读取 ${n} 个文档`,
    failed: (message) => `出错：${message}`,
    routes: { structured: "结构化", narrative: "叙述", composite: "组合", faq: "常见问题" },
    kinds: {
      found: "已找到", partial: "部分找到", not_found: "查不到", unrecognized: "无法识别",
      clarify: "需澄清", refused: "拒答", narrative: "叙述", no_context: "无相关内容",
      degraded: "服务降级",
    },
  },
  en: {
    tabAsk: "Ask", tabDocs: "Documents", language: "Language", langAuto: "Follow question",
    keyButton: "API key", questionLabel: "Question",
    questionPlaceholder: (example) => (example ? `e.g. ${example}` : "Type a question"),
    askButton: "Ask",
    history: "This session's questions", newConversation: "New conversation",
    uploadTitle: "Upload documents",
    dropLabel: "Drop files here, or choose files", reviewTitle: "Review queue",
    includeHidden: "Also read hidden sheets, rows and columns (visible content wins)",
    reviewState: "State", stateOpen: "Open", stateApproved: "Approved", stateRejected: "Rejected",
    stateAll: "All", refresh: "Refresh", keyTitle: "API key needed",
    keyHelp: "The service needs an API key. It is kept in this tab only (sessionStorage).",
    keyRejected: "That key is unknown or revoked; enter another.", keyLabel: "API key",
    save: "Save", cancel: "Cancel", forgetKey: "Forget key", previewTitle: "Source preview",
    close: "Close", asking: "Answering…", sources: "Sources",
    assumption: "Assumption", narrowWith: "Narrow to:", clarify: "Needs clarification",
    refused: "Refused", notFound: "Not found", notFoundWhat: "Not found:",
    citations: "Citations",
    chartTitle: (metric, unit) => `${metric} compared (${unit})`,
    chartBar: (label, value) => `${label}: ${value}, open its source`,
    openSource: (doc, loc) => `Open source preview: ${doc} · ${loc}`,
    cite: (n, doc, loc) => `Citation ${n}: ${doc} · ${loc}`,
    faq: (id, version) => `Vetted FAQ answer (${id}, version ${version})`,
    facts: "Facts at this cell", passages: "Passages",
    noPreview: "This source does not exist, or your key is not cleared for it.",
    metric: "Metric", entity: "Entity", period: "Period", channel: "Channel", value: "Value",
    uploading: "Uploading…", job: "Job", file: "File", outcome: "Outcome", chunks: "Chunks",
    review: "Review", warnings: "Warnings", error: "Error",
    jobState: { queued: "queued", running: "running", done: "done", failed: "failed" },
    progressLabel: (name) => `Progress of ${name}`,
    approve: "Approve", reject: "Reject", correctLabel: "Corrected value",
    corrected: (v) => `Corrected value: ${v}`,
    approveCorrected: "Approve corrected", proposed: "Proposed fact:",
    approved: (id) => `Review item ${id} approved`, rejected: (id) => `Review item ${id} rejected`,
    emptyReview: "No review items.",
    mapTo: "Map to …", mapKind: "Map to a", mapCode: "Code", mapName: "New metric's name",
    mapCodePlaceholder: "search or type a code", mapNamePlaceholder: "new metric's name",
    mapKinds: { metric: "metric", entity: "entity", channel: "channel", new_metric: "new metric" },
    mapped: (label, code, alias, n) =>
      `'${label}' mapped to ${code} (alias '${alias}'); ${n} document(s) read again`,
    failed: (message) => `Error: ${message}`,
    routes: {
      structured: "structured", narrative: "narrative", composite: "composite", faq: "FAQ",
    },
    kinds: {
      found: "found", partial: "partly found", not_found: "not found",
      unrecognized: "unrecognised", clarify: "clarify", refused: "refused",
      narrative: "narrative", no_context: "no context", degraded: "degraded",
    },
  },
};

let choice = sessionStorage.getItem(CHOICE) || "auto";
let followed = (navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en";

export function lang() {
  return choice === "auto" ? followed : choice;
}

export function languageOf(text) {
  return /[\u3400-\u9fff]/.test(text) ? "zh" : "en";
}

export function choose(value) {
  choice = value;
  sessionStorage.setItem(CHOICE, value);
  applyStatic();
}

export function chosen() {
  return choice;
}

export function followQuestion(question) {
  followed = languageOf(question);
  applyStatic();
}

export function t(key, ...args) {
  const value = STRINGS[lang()][key];
  return typeof value === "function" ? value(...args) : value;
}

// Example questions made of the workspace profile's own names (GET /v1/profile/examples), by
// language; the first one is the question box's placeholder.
let examples = { zh: [], en: [] };

export function setExamples(value) {
  examples = value;
  applyStatic();
}

export function formatNumber(value) {
  return new Intl.NumberFormat(lang() === "zh" ? "zh-CN" : "en-US", {
    maximumFractionDigits: 2,
  }).format(value);
}

// A stored period as the engine writes it: FY2025, 2025H1, 2025Q3.
export function periodLabel(type, period) {
  return type === "FY" ? `FY${period}` : `${period}${type}`;
}

// The static wording of the page: elements name their string with data-i18n.
export function applyStatic() {
  document.documentElement.lang = lang() === "zh" ? "zh-CN" : "en";
  for (const node of document.querySelectorAll("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n);
  }
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
    node.placeholder = t(node.dataset.i18nPlaceholder, (examples[lang()] || [])[0]);
  }
}
