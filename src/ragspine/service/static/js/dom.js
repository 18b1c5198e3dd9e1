// Builds elements from data. Server text only ever becomes a text node (textContent, append of
// a string), never markup, so a document's text cannot inject elements or scripts.
function fill(node, props, children) {
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.setAttribute("class", value);
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
}

export function el(tag, props = {}, ...children) {
  return fill(document.createElement(tag), props, children);
}

export function byId(id) {
  return document.getElementById(id);
}
