// The what-if page. Every name and string from a spec is untrusted: it reaches the page only
// as text nodes (never parsed as markup), inside <bdi>/dir="auto" so right-to-left names read right.
"use strict";

const $ = (id) => document.getElementById(id);
let catalog = [];
let job = null;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return node;
}
const bdi = (text) => el("bdi", { dir: "auto" }, String(text));
// An <option> holds text only: a name inside a label with other words is wrapped in Unicode
// isolates (FSI … PDI), the plain-text <bdi>, so "@7 رویین‌تن" keeps its seat on the left.
const iso = (name) => `\u2068${name}\u2069`;
function option(value, label, dir) { const o = el("option", { value, dir: dir || "auto" }); o.textContent = label; return o; }
// "@7 (رویین‌تن)" from an answer: the seat left to right, the role name isolated.
function player(text) {
  const m = /^(@\d+) \((.*)\)$/s.exec(String(text));
  return m ? el("span", { dir: "ltr" }, `${m[1]} (`, bdi(m[2]), ")") : bdi(text);
}

function scenario() { return catalog.find((s) => s.id === $("scenario").value); }
function composition() {
  const sc = scenario();
  return sc && sc.compositions.find((c) => c.ref === $("composition").value);
}
// The left-to-right mark first: a list box reads each option's direction from its text.
function seatLabel(seat) { return `\u200e@${seat.seat} ${iso(seat.name)}`; }

async function load() {
  const reply = await fetch("/api/scenarios");
  catalog = (await reply.json()).scenarios;
  const pick = $("scenario");
  pick.replaceChildren(...catalog.map((s) => option(s.id, s.errors ? `${s.id} (cannot be read)` : `${s.id} — ${iso(s.label || s.scenario)}`, "ltr")));
  pick.addEventListener("change", pickScenario);
  $("composition").addEventListener("change", pickComposition);
  $("phase").addEventListener("change", () => { $("choices").replaceChildren(); updateQuery(); });
  $("phase-number").addEventListener("input", updateQuery);
  $("add-choice").addEventListener("click", () => { addChoice(); updateQuery(); });
  $("vote").addEventListener("change", updateQuery);
  $("ask").addEventListener("click", () => ask(buildQuery()));
  $("ask-text").addEventListener("click", () => ask($("query").value));
  $("ask-open").addEventListener("click", () => ask(buildQuery(openLine()), true));
  $("cancel").addEventListener("click", cancel);
  $("open-goal").addEventListener("change", fillOpenTargets);
  pickScenario();
}

function pickScenario() {
  const sc = scenario();
  if (!sc) return;
  if (sc.errors) {
    showErrors({ error: "this spec cannot be read", errors: sc.errors });
    return;
  }
  $("composition").replaceChildren(...sc.compositions.map((c) => option(c.ref, c.label ? `${c.ref} — ${iso(c.label)}` : c.ref, "ltr")));
  const phases = new Set();
  for (const a of sc.abilities) a.phases.forEach((p) => phases.add(p));
  if (sc.day) phases.add("day");
  const order = ["intro_day", "intro_night", "blind_day", "night", "day"];
  $("phase").replaceChildren(...order.filter((p) => phases.has(p)).map((p) => option(p, p.replace("_", " "))));
  if (phases.has("night")) $("phase").value = "night";
  pickComposition();
}

function pickComposition() {
  const comp = composition();
  const body = $("seats").querySelector("tbody");
  body.replaceChildren();
  if (!comp) return;
  const sides = Object.fromEntries(scenario().sides.map((s) => [s.key, s.name]));
  for (const seat of comp.seats) {
    const box = el("input", { type: "checkbox", "data-seat": String(seat.seat), "aria-label": `seat ${seat.seat} has left` });
    box.addEventListener("change", () => { row.classList.toggle("left", box.checked); updateQuery(); remarkAll(); });
    const counters = el("td", {});
    for (const c of (scenario().counters || {})[seat.role] || []) {
      const input = el("input", { type: "number", min: "0", max: "99", class: "counter", "data-seat": String(seat.seat),
        "data-counter": c.key, placeholder: c.initial === null ? "" : String(c.initial), "aria-label": `${c.key} of seat ${seat.seat}` });
      input.addEventListener("input", updateQuery);
      counters.append(el("label", {}, `${c.key} `, input));
    }
    const row = el("tr", {}, el("td", {}, `@${seat.seat}`), el("td", { dir: "auto" }, bdi(seat.name)),
      el("td", { dir: "auto" }, bdi(sides[seat.side] || seat.side || "chosen in play")), el("td", {}, box), counters);
    body.append(row);
  }
  fillState();
  $("choices").replaceChildren();
  fillVote();
  fillOpenTargets();
  updateQuery();
}

// Memories that hold players (the blacklist …) and items held: what else a moderator sets.
function fillState() {
  const sc = scenario();
  const box = $("state");
  box.replaceChildren();
  const multi = (label, attrs) => {
    const pick = el("select", { multiple: "", size: "3", dir: "ltr", ...attrs }, ...seatOptions());
    pick.addEventListener("change", () => { updateQuery(); remarkAll(); });
    box.append(el("div", { class: "row" }, el("label", {}, bdi(label), " ", pick)));
  };
  for (const m of sc.memories || []) {
    if (m.type === "players" || m.type === "player") multi(m.name, { class: "memory", "data-memory": m.key, "data-type": m.type, "aria-label": m.key });
  }
  for (const item of sc.items || []) {
    for (const v of item.variants) multi(`${item.name} — ${v.name}`, { class: "holds", "data-item": item.key, "data-variant": v.key, "aria-label": `${item.key}(${v.key})` });
  }
}

function remarkAll() { $("choices").querySelectorAll(".choice").forEach((row) => markLegal(row)); }

function stateLines() {
  const lines = [...$("seats").querySelectorAll("input[type=checkbox][data-seat]:checked")].map((b) => `dead @${b.dataset.seat}`);
  for (const c of $("seats").querySelectorAll("input.counter")) {
    if (c.value !== "") lines.push(`counter @${c.dataset.seat} ${c.dataset.counter} = ${Math.max(0, parseInt(c.value, 10) || 0)}`);
  }
  for (const m of $("state").querySelectorAll("select.memory")) {
    const seats = [...m.selectedOptions].map((o) => o.value);
    if (!seats.length) continue;
    lines.push(m.dataset.type === "player" ? `memory ${m.dataset.memory} = ${seats[0]}` : `memory ${m.dataset.memory} = {${seats.join(", ")}}`);
  }
  for (const h of $("state").querySelectorAll("select.holds")) {
    for (const o of h.selectedOptions) lines.push(`holds ${o.value} ${h.dataset.item}(${h.dataset.variant})`);
  }
  return lines;
}

function seatOptions(blank) {
  const comp = composition();
  const opts = comp.seats.map((s) => option(`@${s.seat}`, seatLabel(s), "ltr"));
  return blank ? [option("", blank), ...opts] : opts;
}

function fillVote() {
  $("vote").replaceChildren(option("", "no vote given"), option("none", "nobody leaves"), ...seatOptions());
}

function fillOpenTargets() {
  const sc = scenario();
  const goal = $("open-goal").value;
  if (!sc || !composition()) return;
  $("open-target").replaceChildren(...(goal === "winner" ? sc.sides.map((s) => option(s.key, s.name)) : seatOptions()));
}

function abilitiesNow() {
  const phase = $("phase").value;
  return scenario().abilities.filter((a) => a.phases.includes(phase));
}

function addChoice() {
  const sc = scenario();
  const abilities = abilitiesNow();
  if (!abilities.length) return;
  const ability = el("select", { class: "ability", "aria-label": "ability" }, ...abilities.map((a) => option(a.key, `${a.key} — ${iso(a.name)}`, "ltr")));
  const row = el("div", { class: "choice" });
  const rest = el("span", { class: "rest" });
  const remove = el("button", { type: "button", "aria-label": "remove" }, "×");
  remove.addEventListener("click", () => { row.remove(); updateQuery(); });
  const fill = () => {
    const a = abilities.find((x) => x.key === ability.value);
    rest.replaceChildren();
    rest.append("by ", el("select", { class: "by", "aria-label": "by" }, ...seatOptions("whoever can")));
    for (let i = 0; i < Math.max(a.targets, 0); i++) rest.append(" on ", el("select", { class: "on", "aria-label": "on" }, ...seatOptions()));
    for (const c of a.choices) {
      let values = [];
      if (c.kind === "role") values = sc.roles.map((r) => [r.key, r.name]);
      else if (c.kind === "side") values = sc.sides.map((s) => [s.key, s.name]);
      else values = c.names.map((n) => [n, n]);
      if (c.kind === "role" && c.names.length) values = values.filter(([k]) => c.names.includes(k));
      if (values.length) rest.append(" as ", el("select", { class: "as", "aria-label": "as" }, ...values.map(([k, n]) => option(k, n))));
    }
    rest.querySelectorAll("select").forEach((s) => s.addEventListener("change", updateQuery));
    rest.querySelectorAll(".by, .as").forEach((s) => s.addEventListener("change", () => markLegal(row)));
  };
  ability.addEventListener("change", () => { fill(); updateQuery(); markLegal(row); });
  row.append(ability, rest, remove);
  $("choices").append(row);
  fill();
  markLegal(row);
}

function buildQuery(extra) {
  const comp = composition();
  if (!comp) return "";
  const dead = stateLines();
  const phase = $("phase").value;
  const number = Math.max(1, Math.min(20, parseInt($("phase-number").value, 10) || 1));
  const uses = [...$("choices").querySelectorAll(".choice")].map((row) => useText(row));
  if (phase === "day" && $("vote").value) uses.push(`vote ${$("vote").value}`);
  const lines = [`query table "at the table" {`, `  composition ${comp.ref}`];
  if (dead.length) lines.push(`  state { ${dead.join("  ")} }`);
  if (uses.length) lines.push(`  ${phase} ${number} { ${uses.join("  ")} }`);
  else if (!extra) lines.push(`  ${phase} ${number} { }`);
  else lines.push(`  from ${phase} ${number}`);
  if (extra) lines.push(`  ${extra}`);
  lines.push("}");
  return lines.join("\n") + "\n";
}

// One choice as query text; `target` replaces its first target (to test a seat's legality).
function useText(row, target) {
  let text = row.querySelector(".ability").value;
  const by = row.querySelector(".by");
  if (by && by.value) text += ` by ${by.value}`;
  const on = [...row.querySelectorAll(".on")].map((s) => s.value).filter(Boolean);
  if (target && on.length) on[0] = target;
  if (on.length) text += ` on ${on.join(", ")}`;
  const as = [...row.querySelectorAll(".as")].map((s) => s.value).filter(Boolean);
  if (as.length) text += ` as ${as.join(", ")}`;
  return text;
}

// Which seats the rules allow as this choice's (first) target, given the table: each seat is
// asked of the interpreter, and a forbidden one is marked with the clause that forbids it.
async function markLegal(row) {
  const sc = scenario(), comp = composition();
  const first = row.querySelector(".on");
  if (!first || !comp) return;
  const run = (row.legalityRun = (row.legalityRun || 0) + 1);
  row.dataset.checked = "";
  const state = stateLines();
  const phase = $("phase").value;
  const number = Math.max(1, Math.min(20, parseInt($("phase-number").value, 10) || 1));
  for (const o of first.options) {
    const query = [`query legal {`, `  composition ${comp.ref}`,
      ...(state.length ? [`  state { ${state.join("  ")} }`] : []),
      `  ${phase} ${number} { ${useText(row, o.value)} }`, "}"].join("\n") + "\n";
    let verdict = null, why = "";
    try {
      const reply = await fetch("/api/ask", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ spec: sc.id, query }) });
      const data = await reply.json();
      if (reply.ok) {
        const a = data.answers[0];
        verdict = a.verdict;
        why = a.problems.map((p) => p.message + (p.rules.length ? ` [${p.rules.join(", ")}]` : "")).join("; ");
      }
    } catch (e) { /* the final answer will say */ }
    if (run !== row.legalityRun || !row.isConnected) return;
    if (!o.dataset.label) o.dataset.label = o.textContent;
    const illegal = verdict === "illegal";
    o.classList.toggle("illegal", illegal);
    o.textContent = (illegal ? "✗ " : "") + o.dataset.label;
    o.title = illegal ? why : "";
  }
  row.dataset.checked = "yes";
}

function openLine() {
  const within = Math.max(1, Math.min(5, parseInt($("open-within").value, 10) || 1));
  return `${$("open-mode").value} ${$("open-goal").value} ${$("open-target").value} within ${within}`;
}

function updateQuery() {
  $("vote-label").hidden = $("phase").value !== "day";
  $("query").value = buildQuery();
}

async function ask(query, open) {
  const sc = scenario();
  if (!sc || !query) return;
  $("query").value = query;
  job = `job-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  $("cancel").disabled = false;
  $("progress").hidden = false;
  const started = Date.now();
  $("progress").textContent = "thinking…";
  const ticker = setInterval(() => { $("progress").textContent = `thinking… ${Math.round((Date.now() - started) / 1000)} s`; }, 500);
  $("answer").replaceChildren(el("p", { class: "hint" }, open ? "the solver is searching…" : "…"));
  try {
    const reply = await fetch("/api/ask", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ spec: sc.id, query, job }) });
    const data = await reply.json();
    if (reply.ok) showAnswer(data); else showErrors(data);
  } catch (e) {
    showErrors({ error: String(e) });
  } finally {
    clearInterval(ticker);
    job = null;
    $("cancel").disabled = true;
    $("progress").hidden = true;
  }
}

async function cancel() {
  if (!job) return;
  await fetch("/api/cancel", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ job }) });
}

function showErrors(data) {
  const list = el("ul", {});
  for (const e of data.errors || []) {
    const where = e.span ? `line ${e.span.line}, column ${e.span.column}: ` : "";
    list.append(el("li", { dir: "auto" }, where, bdi(e.message), e.hint ? el("span", { class: "hint" }, ` — ${e.hint}`) : null));
  }
  $("answer").replaceChildren(el("p", { class: "error", id: "error" }, bdi(data.error || "error")), list);
}

function showAnswer(data) {
  const out = [];
  for (const a of data.answers) {
    out.push(el("p", {}, "verdict: ", el("span", { class: `verdict ${a.verdict}`, id: "verdict" }, a.verdict)));
    if (a.detail) out.push(el("p", { dir: "auto" }, bdi(a.detail)));
    for (const p of a.problems) {
      out.push(el("p", { class: p.kind === "illegal" ? "error" : "", dir: "auto" }, `${p.kind}: `, bdi(p.message),
        p.rules.length ? el("span", { class: "rules" }, ` [${p.rules.join(", ")}]`) : null));
    }
    a.outcomes.forEach((o, i) => {
      const box = el("div", { class: "outcome" });
      if (a.outcomes.length > 1) box.append(el("h3", {}, `outcome ${i + 1} of ${a.outcomes.length}`));
      for (const ph of o.phases) {
        box.append(el("h3", {}, ph.phase + (ph.order.length ? ` (resolved: ${ph.order.join(" → ")})` : "")));
        const list = el("ul", {});
        for (const x of ph.exits) list.append(el("li", { dir: "auto", class: "exit" }, player(x.player), ` leaves by ${x.kind}`, x.by ? ` (${x.by})` : ""));
        for (const x of ph.stays) list.append(el("li", { dir: "auto", class: "stay" }, player(x.player), " stays", x.because ? ` because of ${x.because}` : ""));
        for (const x of ph.blocked) list.append(el("li", { dir: "auto" }, player(x), " is blocked"));
        for (const x of ph.learned) list.append(el("li", { dir: "auto" }, player(x.who), " learns ", bdi(String(x.answer)), x.about ? " about " : "", x.about ? player(x.about) : null));
        for (const x of ph.announcements) list.append(el("li", { dir: "auto" }, "announced: ", bdi(x)));
        for (const x of ph.changes) list.append(el("li", { dir: "auto" }, bdi(x)));
        for (const x of ph.not_carried_out) list.append(el("li", { dir: "auto" }, "not carried out: ", bdi(x)));
        for (const x of ph.undecided) list.append(el("li", { dir: "auto", class: "error" }, "the rules do not decide: ", bdi(x)));
        if (!list.children.length) list.append(el("li", {}, "nobody leaves"));
        box.append(list);
        if (ph.winner) box.append(el("p", {}, "winner: ", bdi(ph.winner)));
        if (ph.rules.length || ph.cites.length) box.append(el("p", { class: "rules" }, `rules: ${[...ph.rules, ...ph.cites].join(", ")}`));
      }
      out.push(box);
    });
    if (a.rules.length) out.push(el("p", { class: "rules" }, `decided by: ${a.rules.join(", ")}`));
  }
  $("answer").replaceChildren(...out);
}

document.addEventListener("DOMContentLoaded", load);
