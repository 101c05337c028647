// Entities: search by name and kind (#/entities?query=...&kind=...) and one entity's timeline
// (#/entities/ID): items per day over the last 60 days, then the items.
import { api } from "./api.js";
import { addDays, badge, barChart, clear, day, h, heading, isoToday, link, loading, message, route, fill } from "./dom.js";
import { field, formError, showError } from "./widgets.js";

const KINDS = ["person", "company", "organization", "product", "place", "event"];
const WINDOW_DAYS = 60;

export function renderEntities(main, { params, context }) {
  const query = h("input", { type: "search", name: "query", value: params.get("query") || "", required: true });
  const kind = h("select", { name: "entity_kind" }, h("option", { value: "" }, "Any kind"),
    KINDS.map((k) => h("option", { value: k, selected: params.get("kind") === k }, k)));
  const results = h("section", { class: "results", "aria-live": "polite", "aria-label": "Entities found" });
  const form = h("form", { class: "panel", role: "search" }, formError(),
    h("div", { class: "grid2" }, field("Name, alias or description", query, { name: "query" }), field("Kind", kind, { name: "entity_kinds" })),
    h("button", { type: "submit", class: "primary" }, "Find entities"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams({ query: query.value });
    if (kind.value) next.set("kind", kind.value);
    const hash = "#/entities?" + next.toString();
    if (window.location.hash === hash) run(next);
    else window.location.hash = hash;
  });

  async function run(p) {
    fill(results, loading());
    const body = { query: p.get("query") || "", limit: 25 };
    if (p.get("kind")) body.entity_kinds = [p.get("kind")];
    try {
      const data = await api("POST", "/v1/entities/search", { body });
      if (!context.alive) return;
      fill(results, data.results.length
        ? h("ul", { class: "entity-list" }, data.results.map(({ entity }) => h("li", { class: "card" },
          h("h2", null, link(route("entities", entity.id), entity.display_name)),
          h("p", { class: "meta" }, badge(entity.entity_kind), (entity.aliases || []).length ? h("span", null, `also ${entity.aliases.join(", ")}`) : null),
          entity.description ? h("p", null, entity.description) : null)))
        : message("No entity matches."));
    } catch (error) {
      if (!context.alive) return;
      clear(results);
      showError(form, error);
    }
  }
  main.append(heading("Entities"), form, results);
  if (params.get("query")) run(params);
}

export async function renderEntity(main, { args: [id], context }) {
  const title = heading("Entity");
  main.append(h("p", { class: "crumbs" }, link("#/entities", "Entities")), title, loading());
  const end = isoToday();
  const start = addDays(end, -(WINDOW_DAYS - 1));
  let data;
  try {
    data = await api("GET", `/v1/entities/${encodeURIComponent(id)}/timeline`, { query: { start_date: start, end_date: end, limit: 100 } });
  } catch (error) {
    if (context.alive) main.querySelector(".loading").replaceWith(message(error.message, "error"));
    return;
  }
  if (!context.alive) return;
  const perDay = new Map();
  for (const item of data.timeline) perDay.set(day(item.published_date), (perDay.get(day(item.published_date)) || 0) + 1);
  const bars = [];
  for (let d = start; d <= end; d = addDays(d, 1)) bars.push({ label: d, value: perDay.get(d) || 0 });
  const more = data.has_more ? " (the first 100 items)" : "";
  main.querySelector(".loading").replaceWith(
    barChart(bars, `Items per day, ${start} to ${end}${more}`),
    h("section", null, h("h2", null, `Items (${data.timeline.length}${data.has_more ? "+" : ""})`),
      data.timeline.length
        ? h("ol", { class: "timeline" }, data.timeline.map((item) => h("li", null,
          h("time", { datetime: item.published_date }, day(item.published_date)), " ",
          link(route("item", item.id), item.title || "(untitled)"), " ",
          h("span", { class: "hint" }, item.source ? item.source.name : ""), " ", badge(item.media_type, item.media_type))))
        : message("No items mention this entity in the last 60 days.")));
  // The timeline carries no name: the newest item's linked entities do.
  if (data.timeline.length) {
    try {
      const first = await api("GET", `/v1/content/${encodeURIComponent(data.timeline[0].id)}`);
      const entity = (first.content_item.entities || []).find((e) => e.entity_id === id);
      if (entity && context.alive) {
        title.textContent = entity.display_name;
        title.after(h("p", { class: "meta" }, badge(entity.entity_kind), h("span", { class: "hint" }, id)));
        document.title = `${entity.display_name} - Herald console`;
      }
    } catch {
      // the name is a nicety; the timeline is already on screen
    }
  } else {
    title.after(h("p", { class: "hint" }, id));
  }
}
