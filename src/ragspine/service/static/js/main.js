// Starts the page: language, key dialog, tabs, the Ask and Documents tabs. On load it checks
// whether the service wants a key (GET /v1/models) so the key dialog opens straight away.
import { installAsk } from "./ask.js";
import { getJson, request } from "./api.js";
import { byId } from "./dom.js";
import { installDocuments, loadReview } from "./documents.js";
import { applyStatic, choose, chosen, setExamples } from "./i18n.js";
import { installKeys } from "./keys.js";
import { installPreview } from "./preview.js";

const TABS = [
  ["tab-ask", "panel-ask"],
  ["tab-docs", "panel-docs"],
];

function select(tabId) {
  for (const [tab, panel] of TABS) {
    const on = tab === tabId;
    byId(tab).setAttribute("aria-selected", String(on));
    byId(tab).tabIndex = on ? 0 : -1;
    byId(panel).hidden = !on;
  }
  if (tabId === "tab-docs") loadReview();
}

function installTabs() {
  TABS.forEach(([tab], index) => {
    const button = byId(tab);
    button.addEventListener("click", () => select(tab));
    button.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = TABS[(index + step + TABS.length) % TABS.length][0];
      select(next);
      byId(next).focus();
    });
  });
}

function installLanguage() {
  const picker = byId("lang");
  picker.value = chosen();
  picker.addEventListener("change", () => choose(picker.value));
}

applyStatic();
installLanguage();
installKeys();
installPreview();
installTabs();
installAsk();
installDocuments();
request("/v1/models")
  .then(() => getJson("/v1/profile/examples"))
  .then(setExamples, () => {})
  .finally(() => document.body.setAttribute("data-ready", "true"));
