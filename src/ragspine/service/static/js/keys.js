// The API-key dialog: opened when the service answers 401, or from the header's key button.
import { setKeyPrompt, storeKey, storedKey } from "./api.js";
import { byId } from "./dom.js";
import { t } from "./i18n.js";

let pending = null;

function ask(rejected) {
  if (pending) return pending;
  const dialog = byId("key-dialog");
  const input = byId("key-input");
  byId("key-message").textContent = rejected ? t("keyRejected") : t("keyHelp");
  input.value = "";
  dialog.returnValue = "";
  pending = new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => {
        pending = null;
        resolve(dialog.returnValue === "save" ? input.value.trim() : null);
      },
      { once: true },
    );
  });
  dialog.showModal();
  input.focus();
  return pending;
}

export function installKeys() {
  setKeyPrompt(ask);
  const dialog = byId("key-dialog");
  byId("key-cancel").addEventListener("click", () => dialog.close("cancel"));
  byId("key-forget").addEventListener("click", () => {
    storeKey("");
    dialog.close("cancel");
  });
  byId("key-button").addEventListener("click", async () => {
    const key = await ask(false);
    if (key) storeKey(key);
  });
  return storedKey();
}
