// Calls the service's /v1 API with the key kept in this tab's sessionStorage. A 401 asks the
// user for a key (through the prompt keys.js installs) and retries the call with it.
const KEY = "ragspine.key";

let promptForKey = async () => null;

export function setKeyPrompt(prompt) {
  promptForKey = prompt;
}

export function storedKey() {
  return sessionStorage.getItem(KEY) || "";
}

export function storeKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
  }
}

function withKey(init) {
  const headers = new Headers(init.headers || {});
  const key = storedKey();
  if (key) headers.set("Authorization", `Bearer ${key}`);
  return { ...init, headers };
}

export async function request(path, init = {}) {
  for (;;) {
    const response = await fetch(path, withKey(init));
    if (response.status !== 401) return response;
    const rejected = Boolean(storedKey());
    const key = await promptForKey(rejected);
    if (!key) return response;
    storeKey(key);
  }
}

async function failure(response) {
  return new ApiError(response.status, await response.json().catch(() => null));
}

export async function getJson(path) {
  const response = await request(path);
  if (!response.ok) throw await failure(response);
  return response.json();
}

export async function postJson(path, data) {
  const response = await request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(data),
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

export async function postForm(path, form) {
  const response = await request(path, { method: "POST", body: form });
  if (!response.ok) throw await failure(response);
  return response.json();
}

// POST a JSON body and hand each Server-Sent Event to onEvent(name, data) as it arrives.
export async function stream(path, data, onEvent) {
  const response = await request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(data),
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
      dispatch(block, onEvent);
    }
  }
}

function dispatch(block, onEvent) {
  let name = "message";
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (data.length) onEvent(name, JSON.parse(data.join("\n")));
}
