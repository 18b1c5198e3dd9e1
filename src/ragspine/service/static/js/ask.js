// The Ask tab: the question box, the answers (newest first) and this session's history.
// The questions of the current conversation go with each question (`history`), oldest first,
// so a follow-up ("and in FY2023?") takes the slots it leaves out from them; "New
// conversation" starts over.
import { AnswerCard } from "./answer.js";
import { stream } from "./api.js";
import { byId, el } from "./dom.js";
import { followQuestion } from "./i18n.js";

const HISTORY = "ragspine.history";
const HISTORY_LIMIT = 50;
const CONVERSATION = "ragspine.conversation";
const CONVERSATION_LIMIT = 20; // the service reads at most this many earlier questions

let asked = 0;

function history() {
  try {
    return JSON.parse(sessionStorage.getItem(HISTORY) || "[]");
  } catch {
    return [];
  }
}

function conversation() {
  try {
    return JSON.parse(sessionStorage.getItem(CONVERSATION) || "[]");
  } catch {
    return [];
  }
}

function converse(question) {
  const earlier = conversation();
  const kept = [...earlier, question].slice(-CONVERSATION_LIMIT);
  sessionStorage.setItem(CONVERSATION, JSON.stringify(kept));
  return earlier;
}

function remember(question) {
  const kept = [question, ...history().filter((q) => q !== question)].slice(0, HISTORY_LIMIT);
  sessionStorage.setItem(HISTORY, JSON.stringify(kept));
  showHistory();
}

function showHistory() {
  byId("history-list").replaceChildren(
    ...history().map((question) =>
      el("li", {}, el("button", { type: "button", text: question, onclick: () => ask(question) })),
    ),
  );
}

export async function ask(question) {
  question = question.trim();
  if (!question) return;
  byId("question").value = question;
  followQuestion(question);
  remember(question);
  const history = converse(question);
  const card = new AnswerCard(question, ask);
  asked += 1;
  card.node.dataset.seq = String(asked);
  byId("answers").prepend(card.node);
  try {
    await stream("/v1/ask/stream", { question, history }, (name, data) => card.onEvent(name, data));
  } catch (error) {
    card.fail(error.message);
  }
}

export function installAsk() {
  byId("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    ask(byId("question").value);
  });
  byId("new-conversation").addEventListener("click", () => sessionStorage.removeItem(CONVERSATION));
  showHistory();
}
