// Building DOM from nodes, never from markup strings: text is always text (a player name
// cannot inject markup).

/** h("button", {class: "x", onclick: f, "aria-label": "…"}, child, "text", [more]) */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value == null || value === false) continue;
    if (key === "class") el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === "value") el.value = value;
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replace what ``root`` holds, keeping keyboard focus on the element with the same data-key. */
export function mount(root, ...children) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.key : undefined;
  root.replaceChildren();
  append(root, children);
  if (key) {
    const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    const next = root.querySelector("[data-roving] button:not(:disabled)");
    // Resting on the screen's home while waiting: the turn's first control once there is one.
    if (again && "focusHome" in again.dataset && next) next.focus();
    else if (again && !again.disabled) again.focus();
    // The control that had focus is gone (a card played, a bid made): the next thing to do, or
    // the screen's own resting place (data-focus-home), never the page's body.
    else {
      const target = next ?? root.querySelector("[data-focus-home]");
      if (target) target.focus();
      else focusFirst(root);
    }
  }
}

export function focusFirst(container) {
  const target = container?.querySelector("button:not(:disabled), input, select");
  if (target) target.focus();
}

/**
 * Arrow keys move focus between the enabled buttons of a ``[data-roving]`` group (the hand, the
 * bidding buttons); Tab leaves the group; Enter or Space acts, as buttons do.
 */
export function installRovingKeys(root) {
  root.addEventListener("keydown", (event) => {
    const group = event.target.closest?.("[data-roving]");
    if (!group || event.target.tagName !== "BUTTON") return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    const edge = { Home: "first", End: "last" }[event.key];
    if (!step && !edge) return;
    const buttons = [...group.querySelectorAll("button:not(:disabled)")];
    const at = buttons.indexOf(event.target);
    const next = edge === "first" ? 0 : edge === "last" ? buttons.length - 1
      : (at + step + buttons.length) % buttons.length;
    buttons[next]?.focus();
    event.preventDefault();
  });
}
