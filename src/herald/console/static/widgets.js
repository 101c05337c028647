// Pieces shared by several pages: labelled fields with their error slots, the entity picker,
// the schedule fields and the result card.
import { api } from "./api.js";
import { badge, clear, day, h, link, route } from "./dom.js";

let counter = 0;

// A labelled control with a hint and a slot for the API's message about this field.
// `name` is the API's field name: errors whose `field` starts with it land here.
export function field(label, control, { hint, name } = {}) {
  const id = control.id || `f${++counter}`;
  control.id = id;
  const described = [];
  const wrap = h("div", { class: "field" }, h("label", { for: id }, label), control);
  if (hint) {
    const hintEl = h("p", { class: "hint", id: id + "-hint" }, hint);
    wrap.append(hintEl);
    described.push(hintEl.id);
  }
  if (name) {
    const err = h("p", { class: "field-error", id: id + "-error", "data-error-for": name, role: "alert" });
    wrap.append(err);
    described.push(err.id);
  }
  if (described.length) control.setAttribute("aria-describedby", described.join(" "));
  return wrap;
}

export function errorSlot(name) {
  return h("p", { class: "field-error", "data-error-for": name, role: "alert" });
}

export function clearErrors(form) {
  for (const el of form.querySelectorAll(".field-error, .form-error")) el.textContent = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

// Shows an API error: each detail next to its field, the message at the top of the form.
export function showError(form, error) {
  clearErrors(form);
  const general = form.querySelector(".form-error");
  let placed = false;
  for (const detail of error.details || []) {
    // "schedule.timezone" lands at the time zone if the form has that slot, else at "schedule";
    // a list entry ("search.include_domains.0") at its list.
    const path = String(detail.field || "");
    const parts = path.split(".");
    const names = parts.filter((part) => !/^\d+$/.test(part));
    const slot = [path, names[names.length - 1], parts[0]]
      .map((name) => form.querySelector(`[data-error-for="${CSS.escape(name)}"]`))
      .find((found) => found && found.parentElement.offsetParent !== null); // its field is shown
    if (!slot) continue;
    slot.textContent = detail.message ? `${error.message}: ${detail.message}` : error.message;
    const control = slot.parentElement && slot.parentElement.querySelector("input, select, textarea");
    if (control) control.setAttribute("aria-invalid", "true");
    placed = true;
  }
  if (general) general.textContent = placed ? "Please correct the field marked below." : error.message;
}

export function formError() {
  return h("p", { class: "form-error", role: "alert" });
}

export function splitList(text) {
  return String(text || "")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export const MEDIA_TYPES = ["news", "wire", "podcast"];

export function mediaTypeFields(selected) {
  const chosen = new Set(selected || []);
  return h(
    "fieldset",
    { class: "field inline" },
    h("legend", null, "Media types"),
    MEDIA_TYPES.map((type) =>
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "media_types", value: type, checked: chosen.has(type) }), type),
    ),
    h("p", { class: "hint" }, "None ticked: all media types."),
    errorSlot("media_types"),
  );
}

export function checkedValues(form, name) {
  return [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((el) => el.value);
}

// Entities chosen by name: a search box that asks /v1/entities/search, and the chosen ids.
export function entityPicker(initial) {
  const chosen = new Map((initial || []).map((e) => [e.id, e.name || e.id]));
  const list = h("ul", { class: "chips", "aria-label": "Chosen entities" });
  const found = h("ul", { class: "found" });
  const input = h("input", { type: "search", name: "entity_query", placeholder: "e.g. European Central Bank", autocomplete: "off" });
  const status = h("p", { class: "hint", role: "status" });

  function draw() {
    clear(list);
    for (const [id, name] of chosen) {
      list.append(
        h("li", { class: "chip", "data-entity-id": id }, h("span", null, name),
          h("button", { type: "button", "aria-label": `Remove ${name}`, onclick: () => { chosen.delete(id); draw(); } }, "×")),
      );
    }
  }

  async function find() {
    const query = input.value.trim();
    clear(found);
    if (!query) return;
    status.textContent = "Searching entities…";
    try {
      const data = await api("POST", "/v1/entities/search", { body: { query, limit: 5 } });
      status.textContent = data.results.length ? "" : "No entity matches that name.";
      for (const { entity } of data.results) {
        found.append(h("li", null, h("button", {
          type: "button",
          class: "link-button",
          onclick: () => { chosen.set(entity.id, entity.display_name); clear(found); input.value = ""; draw(); input.focus(); },
        }, `Add ${entity.display_name} (${entity.entity_kind})`)));
      }
    } catch (error) {
      status.textContent = error.message;
    }
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      find();
    }
  });
  const element = h("div", { class: "field" },
    h("label", { for: (input.id = `f${++counter}`) }, "Entities"),
    h("div", { class: "row" }, input, h("button", { type: "button", onclick: find }, "Find entity")),
    status, found, list,
    h("p", { class: "hint" }, "Items linked to at least one chosen entity."),
    errorSlot("entity_ids"));
  draw();
  return { element, ids: () => [...chosen.keys()], entries: () => [...chosen].map(([id, name]) => ({ id, name })) };
}

export function timeZones() {
  let zones = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    zones = [];
  }
  return ["UTC", ...zones.filter((z) => z !== "UTC")];
}

// frequency, time zone, and the minute (hourly) or wall-clock time (daily).
export function scheduleFields(schedule) {
  const current = schedule || { frequency: "daily", timezone: "UTC", run_time: "07:00" };
  const frequency = h("select", { name: "frequency" },
    h("option", { value: "hourly", selected: current.frequency === "hourly" }, "Hourly"),
    h("option", { value: "daily", selected: current.frequency !== "hourly" }, "Daily"));
  const zone = h("select", { name: "timezone" },
    timeZones().map((z) => h("option", { value: z, selected: z === current.timezone }, z)));
  const minute = h("input", { type: "number", name: "minute", min: "0", max: "59", value: current.minute ?? 0 });
  const runTime = h("input", { type: "time", name: "run_time", value: current.run_time || "07:00" });
  const minuteField = field("Minute of the hour", minute, { name: "schedule" });
  const timeField = field("Time of day", runTime, { hint: "On the wall clock of the time zone." });
  const sync = () => {
    minuteField.hidden = frequency.value !== "hourly";
    timeField.hidden = frequency.value === "hourly";
  };
  frequency.addEventListener("change", sync);
  sync();
  const element = h("fieldset", { class: "field" }, h("legend", null, "Schedule"),
    field("Frequency", frequency), field("Time zone", zone, { name: "timezone" }), minuteField, timeField);
  return {
    element,
    value: () =>
      frequency.value === "hourly"
        ? { frequency: "hourly", timezone: zone.value, minute: Number(minute.value || 0) }
        : { frequency: "daily", timezone: zone.value, run_time: runTime.value || "07:00" },
  };
}

export function scheduleText(schedule) {
  if (!schedule) return "";
  const at = schedule.frequency === "hourly"
    ? `at minute ${schedule.minute ?? 0}`
    : `at ${schedule.run_time}`;
  return `${schedule.frequency} ${at} (${schedule.timezone})`;
}

// One content item in a list: title linking to its page, then score, source, date, media type
// and key points.
export function itemCard(item, { score, extra } = {}) {
  const source = item.source || {};
  const meta = h("p", { class: "meta" },
    score === undefined ? null : h("span", { class: "score", title: "Relevance score" }, `score ${Number(score).toFixed(2)}`),
    h("span", { class: "source" }, source.name || ""),
    source.domain && source.domain !== source.name ? h("span", { class: "domain" }, source.domain) : null,
    h("time", { datetime: item.published_date }, day(item.published_date)),
    badge(item.media_type, item.media_type),
    extra || null);
  const points = (item.key_points || []).length
    ? h("ul", { class: "points" }, item.key_points.map((p) => h("li", null, p)))
    : null;
  return h("article", { class: "card", "data-content-id": item.id },
    h("h2", null, link(route("item", item.id), item.title || "(untitled)")), meta, points);
}
