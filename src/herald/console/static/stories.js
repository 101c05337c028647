// Story clusters: the list (#/stories) and one story with its members (#/stories/ID).
import { api } from "./api.js";
import { badge, clear, dateTime, h, heading, link, loading, message, route, fill } from "./dom.js";
import { itemCard } from "./widgets.js";

function storyBadges(cluster) {
  return [
    cluster.featured_status === "featured" ? badge("Featured", "featured") : null,
    h("span", { class: "sources" }, `${cluster.unique_source_count} unique source${cluster.unique_source_count === 1 ? "" : "s"}`),
    h("span", null, `${cluster.member_count} article${cluster.member_count === 1 ? "" : "s"}`),
  ];
}

export async function renderStories(main, { context }) {
  main.append(heading("Stories"), h("p", { class: "hint" }, "Stories created in the last 7 days, newest first. Featured stories are covered by five or more sources."), loading());
  let data;
  try {
    data = await api("GET", "/v1/news/clusters", { query: { limit: 50 } });
  } catch (error) {
    if (context.alive) main.querySelector(".loading").replaceWith(message(error.message, "error"));
    return;
  }
  if (!context.alive) return;
  const list = data.clusters.length
    ? h("ol", { class: "stories" }, data.clusters.map((c) => h("li", { class: "card" + (c.featured_status === "featured" ? " featured" : ""), "data-cluster-id": c.cluster_id },
      h("h2", null, link(route("stories", c.cluster_id), c.title || "(untitled story)")),
      h("p", { class: "meta" }, storyBadges(c), h("span", null, `latest ${dateTime(c.latest_published_at)}`)),
      c.abstract ? h("p", null, c.abstract) : null)))
    : message("No stories in the last 7 days.");
  main.querySelector(".loading").replaceWith(list);
}

export async function renderStory(main, { args: [id], context }) {
  main.append(loading());
  let data;
  try {
    data = await api("GET", `/v1/news/clusters/${encodeURIComponent(id)}`);
  } catch (error) {
    if (context.alive) fill(main, heading("Story"), message(error.message, "error"));
    return;
  }
  if (!context.alive) return;
  const c = data.cluster;
  fill(main, 
    h("p", { class: "crumbs" }, link("#/stories", "Stories")),
    heading(c.title || "(untitled story)"),
    h("p", { class: "meta" }, storyBadges(c)),
    c.abstract ? h("p", { class: "summary" }, c.abstract) : null,
    h("dl", { class: "facts" },
      h("dt", null, "First published"), h("dd", null, dateTime(c.first_published_at)),
      h("dt", null, "Latest published"), h("dd", null, dateTime(c.latest_published_at)),
      (c.key_entities || []).length ? [h("dt", null, "Key entities"), h("dd", null, c.key_entities.join(", "))] : null,
      (c.source_keys || []).length ? [h("dt", null, "Sources"), h("dd", null, c.source_keys.join(", "))] : null),
    (c.key_ideas || []).length ? h("section", null, h("h2", null, "Key ideas"), h("ul", { class: "points" }, c.key_ideas.map((k) => h("li", null, k)))) : null,
    h("section", null, h("h2", null, `Members (${data.members.length})`),
      data.members.map((m) => itemCard(m.content_item, { extra: h("span", { class: "hint" }, `link ${m.link_confidence}`) }))),
  );
}
