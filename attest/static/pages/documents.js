// Documents: drag-and-drop upload to POST /documents with progress, its report, the paged list, delete with confirmation.
(function () {
  "use strict";
  const { SCRIPT_HEADERS, el, getJson, errorMessage, showError, curie, localName, entityHref } = window.Attest;

  const TOKEN_KEY = "attest-token";
  const PAGE = 20;
  const tokenField = document.getElementById("token");
  tokenField.value = sessionStorage.getItem(TOKEN_KEY) || "";
  tokenField.addEventListener("input", () => sessionStorage.setItem(TOKEN_KEY, tokenField.value.trim()));

  function authHeaders() {
    const token = tokenField.value.trim();
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  function counts(report) {
    const rows = [["chunks", report.chunks], ["entities", report.entities], ["relations", report.relations],
                  ["triples", report.triples], ["quarantined", (report.quarantined || []).length],
                  ["rejected items", (report.rejected_items || []).length]];
    return el("dl", { class: "counts" }, rows.filter(([, n]) => n !== undefined)
      .map(([name, n]) => el("div", {}, el("dt", {}, name), el("dd", {}, String(n)))));
  }

  function quarantined(items) {
    if (!items || !items.length) return null;
    return el("details", { class: "report-list", open: true },
      el("summary", {}, `Quarantined by SHACL (${items.length})`),
      el("ul", {}, items.map((item) => el("li", {},
        el("a", { href: entityHref(item.focus) }, curie(item.focus)),
        item.path ? el("span", { class: "mono" }, ` ${curie(item.path)}`) : null,
        el("div", { class: "shacl-message" }, item.message),
        el("div", { class: "muted" }, `${localName(item.shape)} · ${item.severity} · ${item.triples} triple(s) held back`)))));
  }

  function rejected(items) {
    if (!items || !items.length) return null;
    return el("details", { class: "report-list" },
      el("summary", {}, `Extraction items the validator rejected (${items.length})`),
      el("ul", {}, items.map((r) => {
        const item = r.item || {};
        const what = item.name || [item.subject, item.predicate, item.object].filter(Boolean).join(" ") || JSON.stringify(item);
        return el("li", {}, el("strong", {}, what), el("span", { class: "muted" }, ` (${r.kind}${item.type ? ", " + item.type : ""})`),
          el("div", { class: "reject-reason" }, r.reason));
      })));
  }

  function showReport(body, outcome) {
    const report = body.report || {};
    document.getElementById("report").replaceChildren(el("article", { class: "card report", "data-status": body.status || report.status || "done" },
      el("h3", {}, `${outcome} · ${body.source || report.source || body.id}`),
      el("p", { class: "muted" }, `id ${body.id}${body.mode ? " · " + body.mode : ""}${report.extractor ? " · " + report.extractor : ""}`),
      counts(report), quarantined(report.quarantined), rejected(report.rejected_items)));
  }

  function upload(file) {
    const progress = document.getElementById("progress");
    const form = new FormData();
    form.append("file", file, file.name);
    const request = new XMLHttpRequest(); // fetch reports no upload progress
    request.open("POST", "/documents");
    Object.entries({ ...SCRIPT_HEADERS, ...authHeaders() })
      .forEach(([name, value]) => request.setRequestHeader(name, value));
    request.setRequestHeader("Accept", "application/json");
    progress.hidden = false;
    progress.value = 0;
    showError("");
    document.getElementById("report").replaceChildren(el("p", { class: "muted" }, `uploading ${file.name}…`));
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) progress.value = Math.round((100 * event.loaded) / event.total);
    };
    request.upload.onload = () => {
      progress.removeAttribute("value"); // sent: the server is extracting now
      document.getElementById("report").replaceChildren(el("p", { class: "muted" }, `extracting ${file.name}…`));
    };
    request.onload = async () => {
      progress.hidden = true;
      const response = new Response(request.responseText, { status: request.status });
      if (request.status >= 200 && request.status < 300) {
        const body = JSON.parse(request.responseText);
        showReport({ ...body, source: file.name }, request.status === 200 ? "unchanged" : "done");
        reloadList();
      } else {
        document.getElementById("report").replaceChildren();
        showError(`${file.name} was refused (${request.status}): ${await errorMessage(response)}`);
      }
    };
    request.onerror = () => {
      progress.hidden = true;
      showError(`${file.name}: the upload failed (network error)`);
    };
    request.send(form);
  }

  const drop = document.getElementById("drop");
  const fileInput = document.getElementById("file");
  drop.addEventListener("click", () => fileInput.click());
  drop.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      fileInput.click();
    }
  });
  fileInput.addEventListener("change", () => {
    if (fileInput.files.length) upload(fileInput.files[0]);
    fileInput.value = "";
  });
  ["dragenter", "dragover"].forEach((name) => drop.addEventListener(name, (event) => {
    event.preventDefault();
    drop.classList.add("dragging");
  }));
  ["dragleave", "drop"].forEach((name) => drop.addEventListener(name, () => drop.classList.remove("dragging")));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    if (event.dataTransfer.files.length) upload(event.dataTransfer.files[0]);
  });

  async function viewReport(doc) {
    try {
      showReport(await getJson(`/documents/${encodeURIComponent(doc.id)}`), doc.status);
      document.getElementById("report").scrollIntoView({ block: "nearest" });
    } catch (error) {
      showError(error.message);
    }
  }

  async function remove(doc, row) {
    if (!window.confirm(`Delete “${doc.source}” and everything extracted from it?`)) return;
    try {
      await getJson(`/documents/${encodeURIComponent(doc.id)}`, { method: "DELETE", headers: authHeaders() });
      row.remove();
      reloadList();
    } catch (error) {
      showError(`${doc.source} was not deleted: ${error.message}`);
    }
  }

  function documentRow(doc) {
    const row = el("tr", { "data-id": doc.id });
    const chunks = Object.entries(doc.chunks || {}).map(([state, n]) => `${n} ${state}`).join(", ");
    row.append(
      el("td", {}, el("button", { type: "button", class: "link-button", onclick: () => viewReport(doc) }, doc.source),
        el("div", { class: "muted mono small" }, doc.id)),
      el("td", {}, el("span", { class: `status status-${doc.status}` }, doc.status), doc.message ? el("div", { class: "muted small" }, doc.message) : null),
      el("td", {}, chunks || "–"),
      el("td", { class: "small" }, (doc.updated || "").replace("T", " ").slice(0, 19)),
      el("td", {}, el("button", { type: "button", class: "danger", "aria-label": `Delete ${doc.source}`,
        onclick: () => remove(doc, row) }, "Delete")));
    return row;
  }

  async function loadPage(cursor) {
    const body = await getJson(`/documents?limit=${PAGE}${cursor ? "&cursor=" + encodeURIComponent(cursor) : ""}`);
    const table = document.getElementById("documents");
    if (!cursor) table.replaceChildren();
    table.append(...body.documents.map(documentRow));
    const byStatus = Object.entries(body.by_status).map(([s, n]) => `${n} ${s}`).join(", ");
    document.getElementById("doc-count").textContent = `(${body.count}${byStatus ? ": " + byStatus : ""})`;
    const more = document.getElementById("more-documents");
    more.hidden = !body.next;
    more.onclick = () => loadPage(body.next).catch((error) => showError(error.message));
  }

  function reloadList() {
    loadPage(null).catch((error) => showError(error.message));
  }

  reloadList();
})();
