// Content search (#/search?query=...) and one item (#/item/ID).
import { api } from "./api.js";
import { badge, clear, clock, dateTime, day, h, heading, link, loading, message, outsideLink, route, fill } from "./dom.js";
import { checkedValues, clearErrors, entityPicker, field, formError, itemCard, mediaTypeFields, showError, splitList } from "./widgets.js";

const WINDOW_HINT =
  "Leave both dates empty to search the last 60 days through today (UTC). " +
  "To search another window give both dates: a window spans at most 60 days, and the end date counts in full.";

export function renderSearch(main, { params, context }) {
  const query = h("input", { type: "search", name: "query", value: params.get("query") || "", required: true, placeholder: "e.g. earthquake" });
  const start = h("input", { type: "date", name: "start_date", value: params.get("start_date") || "" });
  const end = h("input", { type: "date", name: "end_date", value: params.get("end_date") || "" });
  const include = h("input", { type: "text", name: "include_domains", value: params.get("include_domains") || "", placeholder: "reuters.com, apnews.com" });
  const exclude = h("input", { type: "text", name: "exclude_domains", value: params.get("exclude_domains") || "" });
  const entityIds = splitList(params.get("entity_ids"));
  const names = splitList(params.get("entity_names"));
  const picker = entityPicker(entityIds.map((id, i) => ({ id, name: names[i] ? decodeURIComponent(names[i]) : id })));
  const results = h("section", { class: "results", "aria-label": "Results", "aria-live": "polite" });

  const form = h("form", { class: "panel search-form", role: "search" },
    formError(),
    field("Search", query, { name: "query", hint: 'Natural language; "quoted phrase" must appear, -word excludes.' }),
    h("div", { class: "grid2" },
      field("From", start, { name: "start_date" }),
      field("To", end, { name: "end_date" })),
    h("p", { class: "hint window-rule" }, WINDOW_HINT),
    mediaTypeFields(splitList(params.get("media_types"))),
    h("div", { class: "grid2" },
      field("Only these domains", include, { name: "include_domains", hint: "Comma-separated, at most 10 (subdomains included)." }),
      field("Leave out these domains", exclude, { name: "exclude_domains", hint: "Comma-separated, at most 10; not together with the list beside it." })),
    picker.element,
    h("button", { type: "submit", class: "primary" }, "Search"));

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    next.set("query", query.value);
    for (const [name, value] of [["start_date", start.value], ["end_date", end.value], ["include_domains", include.value], ["exclude_domains", exclude.value]]) {
      if (value.trim()) next.set(name, value.trim());
    }
    const types = checkedValues(form, "media_types");
    if (types.length) next.set("media_types", types.join(","));
    const chosen = picker.entries();
    if (chosen.length) {
      next.set("entity_ids", chosen.map((e) => e.id).join(","));
      next.set("entity_names", chosen.map((e) => encodeURIComponent(e.name)).join(","));
    }
    const hash = "#/search?" + next.toString();
    if (window.location.hash === hash) run(next);
    else window.location.hash = hash; // the route runs the search, so a reload repeats it
  });

  async function run(p) {
    clearErrors(form);
    fill(results, loading());
    const body = { query: p.get("query") || "", limit: 25 };
    if (p.get("start_date")) body.start_date = p.get("start_date");
    if (p.get("end_date")) body.end_date = p.get("end_date");
    if (p.get("media_types")) body.media_types = splitList(p.get("media_types"));
    if (p.get("include_domains")) body.include_domains = splitList(p.get("include_domains"));
    if (p.get("exclude_domains")) body.exclude_domains = splitList(p.get("exclude_domains"));
    if (p.get("entity_ids")) body.entity_ids = splitList(p.get("entity_ids"));
    try {
      const data = await api("POST", "/v1/content/search", { body });
      if (!context.alive) return;
      fill(results, 
        h("p", { class: "count" }, `${data.results.length} result${data.results.length === 1 ? "" : "s"}, best first`),
        data.results.map((r) => itemCard(r.content_item, { score: r.score })),
      );
    } catch (error) {
      if (!context.alive) return;
      clear(results);
      showError(form, error);
    }
  }

  main.append(heading("Search"), form, results);
  if (params.get("query")) run(params);
}

export async function renderItem(main, { args: [id], context }) {
  main.append(loading());
  let item;
  try {
    item = (await api("GET", `/v1/content/${encodeURIComponent(id)}`)).content_item;
  } catch (error) {
    if (context.alive) fill(main, heading("Item"), message(error.message, "error"));
    return;
  }
  if (!context.alive) return;
  const source = item.source || {};
  const facts = h("dl", { class: "facts" },
    h("dt", null, "Source"), h("dd", null, source.name || "", source.domain && source.domain !== source.name ? ` (${source.domain})` : ""),
    h("dt", null, "Published"), h("dd", null, dateTime(item.published_date)),
    h("dt", null, "Media type"), h("dd", null, badge(item.media_type, item.media_type)),
    item.authors && item.authors.length ? [h("dt", null, "Authors"), h("dd", null, item.authors.join(", "))] : null,
    item.podcast ? [h("dt", null, "Podcast"), h("dd", null, [item.podcast.title, item.podcast.publisher].filter(Boolean).join(" - "))] : null,
    item.duration_seconds ? [h("dt", null, "Duration"), h("dd", null, clock(item.duration_seconds))] : null,
    item.cluster_id ? [h("dt", null, "Story"), h("dd", null, link(route("stories", item.cluster_id), "Open the story"))] : null,
    item.url ? [h("dt", null, "Original"), h("dd", null, outsideLink(item.url, source.domain || "link") || item.url)] : null);

  const sections = [heading(item.title || "(untitled)"), facts];
  sections.push(h("section", null, h("h2", null, "Summary"),
    item.summary ? h("p", { class: "summary" }, item.summary) : h("p", { class: "hint" }, "Not enriched yet.")));
  if ((item.key_points || []).length) {
    sections.push(h("section", null, h("h2", null, "Key points"), h("ul", { class: "points" }, item.key_points.map((p) => h("li", null, p)))));
  }
  const entities = item.entities || [];
  sections.push(h("section", null, h("h2", null, "Entities"),
    entities.length
      ? h("ul", { class: "entities" }, entities.map((e) => h("li", null,
        link(route("entities", e.entity_id), e.display_name), " ", badge(e.entity_kind),
        h("span", { class: "hint" }, ` ${e.mention_count} mention${e.mention_count === 1 ? "" : "s"}`))))
      : h("p", { class: "hint" }, "No linked entities.")));
  if ((item.segments || []).length) {
    sections.push(h("section", null, h("h2", null, "Segments"), h("ol", { class: "segments" }, item.segments.map((s) =>
      h("li", null,
        h("p", { class: "meta" }, h("span", { class: "time" }, `${clock(s.start_seconds)}–${clock(s.end_seconds)}`), s.speaker ? h("span", null, s.speaker) : null),
        h("h3", null, s.title), h("p", null, s.summary),
          (s.key_points || []).length ? h("ul", { class: "points" }, s.key_points.map((p) => h("li", null, p))) : null)))));
  }
  sections.push(h("p", { class: "hint" }, `Item ${item.id}, published ${day(item.published_date)}. The body and transcript are never shown: the API does not return them.`));
  fill(main, ...sections);
}
