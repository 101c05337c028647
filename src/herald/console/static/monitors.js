// Monitors: the list and a create form (#/monitors), and one monitor (#/monitors/ID): edit,
// disable, run now, backfill, the per-date ledger, task progress and the result store.
import { api } from "./api.js";
import { addDays, badge, clear, dateTime, h, heading, isoToday, link, loading, message, route, fill } from "./dom.js";
import {
  checkedValues, clearErrors, entityPicker, field, formError, itemCard, mediaTypeFields,
  scheduleFields, scheduleText, showError, splitList,
} from "./widgets.js";

const POLL_MS = 1000;
const MAX_BACKFILL_DATES = 100;

export async function renderMonitors(main, { context }) {
  const list = h("section", { "aria-label": "Monitors" }, loading());
  main.append(heading("Monitors"), list, createForm());

  try {
    const data = await api("GET", "/v1/monitors", { query: { limit: 100 } });
    if (!context.alive) return;
    fill(list, data.monitors.length
      ? h("ul", { class: "monitor-list" }, data.monitors.map((m) => h("li", { class: "card", "data-monitor-id": m.id },
        h("h2", null, link(route("monitors", m.id), m.name)),
        h("p", { class: "meta" }, badge(m.status, m.status), h("span", null, `“${m.search.query}”`), h("span", null, scheduleText(m.schedule)),
          m.next_run_at ? h("span", null, `next ${dateTime(m.next_run_at)}`) : null))))
      : message("No monitors yet: create one below."));
  } catch (error) {
    if (context.alive) fill(list, message(error.message, "error"));
  }
}

function createForm() {
  const name = h("input", { type: "text", name: "name", required: true });
  const query = h("input", { type: "search", name: "query", required: true });
  const include = h("input", { type: "text", name: "include_domains" });
  const exclude = h("input", { type: "text", name: "exclude_domains" });
  const picker = entityPicker([]);
  const schedule = scheduleFields(null);
  const form = h("form", { class: "panel", "aria-labelledby": "create-monitor" },
    h("h2", { id: "create-monitor" }, "New monitor"),
    formError(),
    field("Name", name, { name: "name" }),
    h("fieldset", { class: "field" }, h("legend", null, "Saved search"),
      field("Query", query, { name: "search" }),
      mediaTypeFields([]),
      h("div", { class: "grid2" },
        field("Only these domains", include, { name: "include_domains", hint: "Comma-separated, at most 10." }),
        field("Leave out these domains", exclude, { name: "exclude_domains", hint: "Comma-separated; not with the list beside it." })),
      picker.element),
    schedule.element,
    h("button", { type: "submit", class: "primary" }, "Create monitor"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const search = { query: query.value };
    const types = checkedValues(form, "media_types");
    if (types.length) search.media_types = types;
    if (splitList(include.value).length) search.include_domains = splitList(include.value);
    if (splitList(exclude.value).length) search.exclude_domains = splitList(exclude.value);
    if (picker.ids().length) search.entity_ids = picker.ids();
    try {
      const monitor = await api("POST", "/v1/monitors", { body: { name: name.value, search, schedule: schedule.value() } });
      window.location.hash = route("monitors", monitor.id);
    } catch (error) {
      showError(form, error);
    }
  });
  return form;
}

export async function renderMonitor(main, { args: [id], context }) {
  const path = `/v1/monitors/${encodeURIComponent(id)}`;
  main.append(loading());
  let monitor;
  try {
    monitor = await api("GET", path);
  } catch (error) {
    if (context.alive) fill(main, heading("Monitor"), message(error.message, "error"));
    return;
  }
  if (!context.alive) return;

  const title = heading(monitor.name);
  const summary = h("div");
  const progress = h("section", { class: "panel task", "aria-live": "polite", "aria-label": "Task progress", hidden: true });
  const ledger = h("section", { "aria-label": "Ledger" });
  const results = h("section", { "aria-label": "Results" });

  function drawSummary() {
    const s = monitor.search;
    fill(summary, 
      h("p", { class: "meta" }, badge(monitor.status, monitor.status), h("span", null, scheduleText(monitor.schedule)),
        monitor.next_run_at ? h("span", null, `next run ${dateTime(monitor.next_run_at)}`) : null),
      h("dl", { class: "facts" },
        h("dt", null, "Query"), h("dd", null, s.query),
        s.media_types ? [h("dt", null, "Media types"), h("dd", null, s.media_types.join(", "))] : null,
        s.include_domains ? [h("dt", null, "Only domains"), h("dd", null, s.include_domains.join(", "))] : null,
        s.exclude_domains ? [h("dt", null, "Excluded domains"), h("dd", null, s.exclude_domains.join(", "))] : null,
        s.entity_ids ? [h("dt", null, "Entities"), h("dd", null, s.entity_ids.map((e) => link(route("entities", e), e)))] : null));
  }

  // Polls a task until it has finished, showing its dated jobs; then refreshes ledger and results.
  function follow(created) {
    const taskId = created.task_id;
    progress.hidden = false;
    // What the request answered, until the first poll: queued dates and those it skipped.
    const asked = created.summary;
    progress.dataset.status = created.status;
    fill(progress, h("h2", null, `Task ${created.status}`),
      h("p", { class: "meta task-counts" }, `${asked.queued} of ${asked.requested} dates queued, ${asked.already_complete} already complete, ${asked.already_running} already running`));
    let stop = null;
    const tick = async () => {
      let task;
      try {
        task = await api("GET", `${path}/backfills/${encodeURIComponent(taskId)}`);
      } catch (error) {
        if (stop) stop();
        fill(progress, message(error.message, "error"));
        return;
      }
      if (!context.alive) return;
      const t = task.summary;
      const done = t.succeeded + t.failed + t.skipped;
      const shown = progress.querySelector("details.jobs-detail");
      const open = shown ? shown.open : task.tasks.length <= 8; // keep the reader's choice
      const bar = h("progress", { max: String(Math.max(1, t.requested)), value: String(done) });
      fill(progress, 
        h("h2", null, `Task ${task.kind}: ${task.status}`),
        h("label", { class: "progress" }, bar, ` ${done} of ${t.requested} dates done`),
        h("p", { class: "meta task-counts" }, `${t.queued} queued, ${t.running} running, ${t.succeeded} succeeded, ${t.failed} failed, ${t.skipped} skipped`),
        h("details", { class: "jobs-detail", open }, h("summary", null, `Dated jobs (${task.tasks.length})`),
          h("ul", { class: "jobs" }, task.tasks.map((job) => h("li", { class: "status-" + job.status },
          `${job.published_date}: ${job.status}`, job.result_count === null ? "" : `, ${job.result_count} results (${job.new_result_count ?? 0} new)`,
          job.error_message ? ` - ${job.error_message}` : "")))));
      progress.dataset.status = task.status;
      if (task.status === "succeeded" || task.status === "failed") {
        if (stop) stop();
        loadLedger();
        loadResults();
      }
    };
    stop = context.every(POLL_MS, tick);
    tick();
  }

  const actions = h("section", { class: "panel", "aria-labelledby": "monitor-actions" }, h("h2", { id: "monitor-actions" }, "Run"));
  const actionError = formError();
  const runButton = h("button", { type: "button", class: "primary", onclick: async () => {
    try {
      const task = await api("POST", `${path}/run`, { body: {} });
      follow(task);
    } catch (error) {
      actionError.textContent = error.message;
    }
  } }, "Run now");
  const from = h("input", { type: "date", name: "from", value: addDays(isoToday(), -6) });
  const to = h("input", { type: "date", name: "to", value: isoToday() });
  const backfillForm = h("form", { class: "inline-form" }, formError(),
    field("Backfill from", from), field("to", to, { name: "dates" }),
    h("button", { type: "submit" }, "Backfill"));
  backfillForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(backfillForm);
    const dates = [];
    for (let d = from.value; d && to.value && d <= to.value && dates.length < MAX_BACKFILL_DATES + 1; d = addDays(d, 1)) dates.push(d);
    try {
      const task = await api("POST", `${path}/backfills`, { body: { dates } });
      follow(task);
    } catch (error) {
      showError(backfillForm, error);
    }
  });
  actions.append(actionError, h("p", { class: "hint" }, "Run now searches today (UTC) and the three days before. A backfill searches the published dates you choose (at most 100)."),
    runButton, backfillForm);

  async function loadLedger() {
    try {
      const data = await api("GET", `${path}/backfills`, { query: { limit: 200 } });
      if (!context.alive) return;
      const entries = [...data.backfills].sort((a, b) => (a.date < b.date ? -1 : 1));
      const s = data.summary;
      fill(ledger, h("h2", null, "Dates searched"),
        h("p", { class: "meta" }, `${s.total} dates: ${s.succeeded} succeeded, ${s.running} running, ${s.failed} failed, ${s.skipped} skipped`),
        entries.length
          ? h("ol", { class: "strip" }, entries.map((e) => h("li", {
            class: `status-${e.status}${e.complete ? " complete" : ""}`,
            title: `${e.date}: ${e.status}${e.complete ? ", complete" : ""}, ${e.result_count} results${e.error_message ? " - " + e.error_message : ""}`,
          }, h("span", { class: "day" }, e.date.slice(5)), h("span", { class: "n" }, String(e.result_count)))))
          : message("No date searched yet: run the monitor or backfill."),
        h("ul", { class: "legend" }, ["succeeded", "running", "failed", "skipped"].map((k) => h("li", null, h("span", { class: "swatch status-" + k }), k)),
          h("li", null, h("span", { class: "swatch complete" }), "complete (searched 72 h after the date ended)")));
    } catch (error) {
      if (context.alive) fill(ledger, message(error.message, "error"));
    }
  }

  const storeQuery = h("input", { type: "search", name: "store_query" });
  const storeForm = h("form", { class: "inline-form", role: "search" }, formError(), field("Search the results", storeQuery, { name: "query" }), h("button", { type: "submit" }, "Search results"));
  const resultList = h("div", { "aria-live": "polite" });
  storeForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(storeForm);
    if (!storeQuery.value.trim()) {
      loadResults();
      return;
    }
    try {
      const data = await api("POST", `${path}/search`, { body: { query: storeQuery.value, limit: 50 } });
      if (!context.alive) return;
      fill(resultList, h("p", { class: "count" }, `${data.results.length} matching results`), data.results.map((r) => itemCard(r.content_item, { score: r.score })));
    } catch (error) {
      showError(storeForm, error);
    }
  });
  results.append(h("h2", null, "Captured results"), storeForm, resultList);

  async function loadResults() {
    try {
      const data = await api("GET", `${path}/results`, { query: { limit: 50 } });
      if (!context.alive) return;
      fill(resultList, h("p", { class: "count" }, `${data.results.length}${data.has_more ? "+" : ""} results, newest first`),
        data.results.map((r) => itemCard(r.content_item, { score: r.score, extra: h("span", { class: "hint" }, `captured ${dateTime(r.first_captured_at)}`) })));
    } catch (error) {
      if (context.alive) fill(resultList, message(error.message, "error"));
    }
  }

  main.replaceChildren(h("p", { class: "crumbs" }, link("#/monitors", "Monitors")), title, summary, actions, progress, ledger, results, editForm());
  drawSummary();
  if (monitor.status !== "active") runButton.disabled = true;
  loadLedger();
  loadResults();

  function editForm() {
    const name = h("input", { type: "text", name: "name", value: monitor.name, required: true });
    const schedule = scheduleFields(monitor.schedule);
    const form = h("form", { class: "panel", "aria-labelledby": "edit-monitor" }, h("h2", { id: "edit-monitor" }, "Edit"), formError(),
      field("Name", name, { name: "name" }), schedule.element, h("button", { type: "submit" }, "Save changes"));
    const saved = h("p", { class: "hint", role: "status" });
    form.append(saved);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearErrors(form);
      try {
        monitor = await api("PATCH", path, { body: { name: name.value, schedule: schedule.value() } });
        title.textContent = monitor.name;
        drawSummary();
        saved.textContent = "Saved.";
      } catch (error) {
        showError(form, error);
      }
    });
    const confirm = h("button", { type: "button", class: "danger", hidden: true, onclick: async () => {
      try {
        monitor = await api("DELETE", path);
        drawSummary();
        runButton.disabled = true;
        disable.hidden = true;
        confirm.hidden = true;
        saved.textContent = "Disabled: the monitor no longer runs.";
      } catch (error) {
        saved.textContent = error.message;
      }
    } }, "Yes, disable it for good");
    const disable = h("button", { type: "button", class: "danger", hidden: monitor.status !== "active", onclick: () => { confirm.hidden = false; confirm.focus(); } }, "Disable…");
    form.append(h("div", { class: "row" }, disable, confirm));
    return form;
  }
}
