// The console's entry point: sign-in, navigation and the hash routes (#/stories/ID ...), which
// survive a reload because the whole state of a page is in its route.
import { api, auth } from "./api.js";
import { clear, h, heading } from "./dom.js";
import { field, formError } from "./widgets.js";
import { renderItem, renderSearch } from "./search.js";
import { renderStories, renderStory } from "./stories.js";
import { renderEntities, renderEntity } from "./entities.js";
import { renderMonitor, renderMonitors } from "./monitors.js";
import { renderWebhooks } from "./webhooks.js";

const ROUTES = [
  [/^search$/, renderSearch, "search"],
  [/^item\/([^/]+)$/, renderItem, "search"],
  [/^stories$/, renderStories, "stories"],
  [/^stories\/([^/]+)$/, renderStory, "stories"],
  [/^entities$/, renderEntities, "entities"],
  [/^entities\/([^/]+)$/, renderEntity, "entities"],
  [/^monitors$/, renderMonitors, "monitors"],
  [/^monitors\/([^/]+)$/, renderMonitor, "monitors"],
  [/^webhooks$/, renderWebhooks, "webhooks"],
];

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const signOutButton = document.getElementById("sign-out");
let current = null; // the page on screen: {alive, stop()} so late answers and timers end with it

function parseHash() {
  const raw = window.location.hash.replace(/^#\/?/, "");
  const [path, query] = raw.split("?");
  return { path: path || "search", params: new URLSearchParams(query || "") };
}

function newContext() {
  const timers = new Set();
  const context = {
    alive: true,
    every(ms, fn) {
      const id = window.setInterval(fn, ms);
      timers.add(id);
      return () => { window.clearInterval(id); timers.delete(id); };
    },
    stop() {
      context.alive = false;
      for (const id of timers) window.clearInterval(id);
    },
  };
  return context;
}

function render() {
  if (current) current.stop();
  current = newContext();
  clear(main);
  if (!auth.key) {
    nav.hidden = true;
    signOutButton.hidden = true;
    renderSignIn();
    return;
  }
  nav.hidden = false;
  signOutButton.hidden = false;
  const { path, params } = parseHash();
  for (const [pattern, page, section] of ROUTES) {
    const match = path.match(pattern);
    if (!match) continue;
    for (const a of nav.querySelectorAll("a")) {
      if (a.dataset.section === section) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    const args = match.slice(1).map((part) => decodeURIComponent(part));
    page(main, { params, args, context: current });
    focusHeading();
    return;
  }
  main.append(heading("Not found"), h("p", null, "There is no such page in the console. ", h("a", { href: "#/search" }, "Go to search.")));
  focusHeading();
}

function focusHeading() {
  const title = main.querySelector("h1");
  if (title) {
    document.title = `${title.textContent} - Herald console`;
    if (document.activeElement === document.body || !main.contains(document.activeElement)) title.focus({ preventScroll: true });
  }
}

function renderSignIn() {
  const input = h("input", { type: "password", name: "api_key", autocomplete: "off", required: true, spellcheck: "false" });
  const error = formError();
  const form = h("form", { class: "panel narrow", novalidate: true },
    heading("Sign in"),
    h("p", null, "Sign in with a Herald API key (for example the key that make run printed). It is kept in this browser tab only, and forgotten when the tab closes or you sign out."),
    error,
    field("API key", input),
    h("button", { type: "submit", class: "primary" }, "Sign in"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      error.textContent = "Enter an API key.";
      return;
    }
    try {
      await api("GET", "/v1/monitors", { query: { limit: 1 }, key });
    } catch (failure) {
      error.textContent = failure.status === 401 ? "That key was refused: it is mistyped or revoked (each make run revokes the key the run before printed). Use the newest key, or create one on the server with: herald keys create --workspace NAME" : failure.message;
      return;
    }
    auth.signIn(key);
    render();
  });
  main.append(form);
}

signOutButton.addEventListener("click", () => {
  auth.signOut();
  window.location.hash = "#/search";
  render();
});

window.addEventListener("herald:unauthorized", () => {
  auth.signOut();
  render();
});
window.addEventListener("hashchange", render);
render();
