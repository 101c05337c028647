// The workspace's webhook (#/webhooks): target and enabled flag, the signing secret (shown once,
// with a copy button), rotation, a test delivery, the attempt log and the attempt stats.
import { api } from "./api.js";
import { badge, clear, dateTime, h, heading, loading, message, stackedChart, fill } from "./dom.js";
import { clearErrors, field, formError, showError } from "./widgets.js";

const STATUSES = ["succeeded", "retrying", "pending", "failed"];
const BUCKETS = [[5, "5 minutes"], [15, "15 minutes"], [60, "1 hour"], [1440, "1 day"]];

export async function renderWebhooks(main, { context }) {
  const secretBox = h("section", { class: "panel secret", hidden: true, "aria-live": "polite" });
  const testResult = h("p", { class: "hint", role: "status" });
  const log = h("section", { "aria-label": "Delivery log" });
  const stats = h("section", { "aria-label": "Delivery stats" });
  const url = h("input", { type: "url", name: "url", placeholder: "https://example.com/herald", required: true });
  const enabled = h("input", { type: "checkbox", name: "enabled", checked: true });
  const preview = h("p", { class: "meta" });
  const form = h("form", { class: "panel" }, h("h2", null, "Target"), formError(),
    field("Target URL (HTTPS)", url, { name: "url" }),
    h("label", { class: "check" }, enabled, "Enabled: deliver events to this target"),
    preview,
    h("button", { type: "submit", class: "primary" }, "Save target"));

  function showConfig(data) {
    const hook = data.webhook;
    if (hook.url) url.value = hook.url;
    enabled.checked = hook.configured ? hook.enabled : true;
    preview.textContent = hook.configured
      ? `Signing secret ${hook.signing_secret ? hook.signing_secret.preview : "-"} (version ${hook.signing_secret ? hook.signing_secret.version : "-"})`
      : "No target yet.";
    rotate.disabled = !hook.configured;
    test.disabled = !hook.configured;
    if (data.new_signing_secret) showSecret(data.new_signing_secret);
  }

  function showSecret(secret) {
    const code = h("code", { class: "secret-value" }, secret);
    const copied = h("span", { class: "hint", role: "status" });
    const copy = h("button", { type: "button", onclick: async () => {
      try {
        await navigator.clipboard.writeText(secret);
        copied.textContent = "Copied.";
      } catch {
        const range = document.createRange();
        range.selectNodeContents(code);
        window.getSelection().removeAllRanges();
        window.getSelection().addRange(range);
        copied.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
      }
    } }, "Copy");
    fill(secretBox, h("h2", null, "New signing secret"),
      h("p", null, "Shown only now: store it where your receiver can read it. Herald keeps only what it needs to sign and never shows it again."),
      h("div", { class: "row" }, code, copy, copied));
    secretBox.hidden = false;
    copy.focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    try {
      showConfig(await api("PUT", "/v1/webhooks", { body: { url: url.value, enabled: enabled.checked } }));
      testResult.textContent = "";  // an earlier test's or rotation's message no longer holds
    } catch (error) {
      showError(form, error);
    }
  });
  const rotate = h("button", { type: "button", onclick: async () => {
    try {
      showConfig(await api("POST", "/v1/webhooks/rotate-signing-secret"));
    } catch (error) {
      testResult.textContent = error.message;
    }
  } }, "Rotate signing secret");
  const test = h("button", { type: "button", onclick: async () => {
    testResult.textContent = "Sending a test event…";
    try {
      const d = (await api("POST", "/v1/webhooks/test")).delivery;
      testResult.textContent = deliveryLine(d);
    } catch (error) {
      testResult.textContent = error.message;
    }
    loadLog();
    loadStats();
  } }, "Send a test event");

  const bucket = h("select", { name: "bucket_minutes" }, BUCKETS.map(([m, label]) => h("option", { value: String(m), selected: m === 60 }, label)));
  bucket.addEventListener("change", () => loadStats());

  async function loadLog() {
    try {
      const data = await api("GET", "/v1/webhooks/events");
      if (!context.alive) return;
      fill(log, h("h2", null, "Delivery log"), h("p", { class: "hint" }, "Every attempt of the last 7 days, newest first."),
        data.events.length
          ? h("div", { class: "table-wrap" }, h("table", { class: "attempts" },
            h("thead", null, h("tr", null, ["When", "Event", "Attempt", "Status", "HTTP", "Time", "Error"].map((t) => h("th", { scope: "col" }, t)))),
            h("tbody", null, data.events.map((a) => h("tr", { "data-event-id": a.event_id },
              h("td", null, dateTime(a.attempted_at)), h("td", null, a.event_type), h("td", null, String(a.attempt_number)),
              h("td", null, badge(a.delivery_status, a.delivery_status)), h("td", null, a.http_status === null ? "-" : String(a.http_status)),
              h("td", null, `${a.duration_ms} ms`), h("td", null, a.error || ""))))))
          : message("No delivery attempts in the last 7 days."));
    } catch (error) {
      if (context.alive) fill(log, message(error.message, "error"));
    }
  }

  async function loadStats() {
    const minutes = Number(bucket.value);
    try {
      const data = await api("GET", "/v1/webhooks/stats", { query: { bucket_minutes: minutes } });
      if (!context.alive) return;
      const columns = [];
      const start = Date.parse(data.start_at);
      const end = Date.parse(data.end_at);
      const step = minutes * 60000;
      const byBucket = new Map();
      for (const s of data.stats) {
        const at = Date.parse(s.bucket_start);
        if (!byBucket.has(at)) byBucket.set(at, {});
        byBucket.get(at)[s.delivery_status] = s.attempt_count;
      }
      for (let at = Math.floor(start / step) * step; at <= end && columns.length < 400; at += step) {
        columns.push({ label: dateTime(new Date(at).toISOString().replace(".000Z", "Z")), parts: byBucket.get(at) || {} });
      }
      fill(stats, h("h2", null, "Attempts by status"), field("Bucket", bucket),
        stackedChart(columns, STATUSES, `Delivery attempts per ${BUCKETS.find(([m]) => m === minutes)[1]}, ${dateTime(data.start_at)} to ${dateTime(data.end_at)}`));
    } catch (error) {
      if (context.alive) fill(stats, message(error.message, "error"));
    }
  }

  main.append(heading("Webhooks"),
    h("p", { class: "hint" }, "Herald signs every delivery to this workspace's HTTPS target; monitor events and test events are delivered and retried on failure."),
    form, secretBox, h("div", { class: "row actions" }, rotate, test), testResult, log, stats);
  const status = loading();
  main.append(status);
  try {
    const data = await api("GET", "/v1/webhooks");
    if (!context.alive) return;
    status.remove();
    showConfig(data);
  } catch (error) {
    if (context.alive) status.replaceWith(message(error.message, "error"));
  }
  loadLog();
  loadStats();
}

// How a test delivery went, in one line: "webhook.test failed: HTTP 500: Internal Server
// Error" names the HTTP status once (the error carries it when there is one).
function deliveryLine(d) {
  const status = d.last_http_status && !(d.last_error || "").startsWith(`HTTP ${d.last_http_status}`)
    ? ` ${d.last_http_status}` : "";
  return `${d.event_type} ${d.delivery_status}${status}${d.last_error ? ": " + d.last_error : ""}`;
}
