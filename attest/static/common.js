// Shared helpers of Attest's pages: the page config, JSON requests with Attest's error messages, safe DOM building.
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("attest-config").textContent);

  // el("a", {href: "/x", class: "y"}, "text", child): text is always set as text, never parsed as HTML
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([name, value]) => {
      if (value === null || value === undefined || value === false) return;
      if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else if (name === "class") node.className = value;
      else node.setAttribute(name, value === true ? "" : value);
    });
    children.flat().forEach((child) => {
      if (child === null || child === undefined || child === false) return;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  // Attest answers errors as JSON {"error", "message", ...}; FastAPI's own validation errors as {"detail": [...]}
  async function errorMessage(response) {
    const text = await response.text();
    try {
      const body = JSON.parse(text);
      if (body.message) return body.message;
      if (Array.isArray(body.detail)) return body.detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
      if (body.detail) return String(body.detail);
    } catch (_) {
      /* not JSON */
    }
    return text || `${response.status} ${response.statusText}`;
  }

  // Every request of the pages says it comes from a script: the server refuses token-less writes sent as a form's
  // content type without this header, which an HTML form on another site cannot set (docs/security.md).
  const SCRIPT_HEADERS = { "X-Requested-With": "attest" };

  async function getJson(url, options) {
    const { headers, ...rest } = options || {};
    const response = await fetch(url, { headers: { Accept: "application/json", ...SCRIPT_HEADERS, ...(headers || {}) },
                                        ...rest });
    if (!response.ok) {
      const error = new Error(await errorMessage(response));
      error.status = response.status;
      throw error;
    }
    return response.status === 204 ? null : response.json();
  }

  function postJson(url, body) {
    return getJson(url, {
      method: "POST", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json" },
    });
  }

  function showError(message) {
    const box = document.getElementById("ui-error");
    box.textContent = message;
    box.hidden = !message;
  }

  // a CURIE for an IRI under one of the server's prefixes, else the IRI
  function curie(iri) {
    if (!iri) return "";
    let best = null;
    Object.entries(config.prefixes).forEach(([prefix, namespace]) => {
      if (iri.startsWith(namespace) && (!best || namespace.length > best[1].length)) best = [prefix, namespace];
    });
    return best ? `${best[0]}:${iri.slice(best[1].length)}` : iri;
  }

  function localName(iri) {
    return (iri || "").split(/[#/]/).pop() || iri;
  }

  // the entity page of an IRI minted under the base, or of any other IRI (a CURIE or the IRI is its id)
  function entityHref(iri) {
    const id = iri.startsWith(config.entityBase) ? iri.slice(config.entityBase.length) : curie(iri);
    return "/ui/entity/" + encodeURIComponent(id);
  }

  // a chunk's text with the given spans ([{start, end}], offsets into the text) wrapped in <mark>
  function highlighted(text, spans) {
    const out = el("p", { class: "passage-text" });
    let at = 0;
    spans.slice().sort((a, b) => a.start - b.start).forEach((span) => {
      if (span.start < at) return; // overlapping mentions: the first wins
      out.append(text.slice(at, span.start), el("mark", {}, text.slice(span.start, span.end)));
      at = span.end;
    });
    out.append(text.slice(at));
    return out;
  }

  // a source passage: GET /passages/{chunk}, the mentions of `entities` (IRIs) highlighted
  async function passage(chunkIri, entities) {
    const chunkId = chunkIri.split("/").pop();
    const box = el("figure", { class: "passage" }, el("figcaption", { class: "muted" }, "loading passage…"));
    try {
      const p = await getJson(`/passages/${encodeURIComponent(chunkId)}`);
      const wanted = new Set(entities.map((iri) => (iri.startsWith(config.entityBase) ? iri.slice(config.entityBase.length) : iri)));
      const spans = p.mentions.filter((m) => wanted.has(m.entity) || wanted.has(curie(m.entity)));
      const where = p.start !== null ? ` · characters ${p.start}–${p.end}` : "";
      box.replaceChildren(
        el("figcaption", {}, el("strong", {}, p.source || p.document), el("span", { class: "muted" }, where)),
        highlighted(p.text, spans),
      );
    } catch (error) {
      box.replaceChildren(el("figcaption", { class: "error" }, `passage ${chunkId}: ${error.message}`));
    }
    return box;
  }

  function sparqlEditorHref(query) {
    return "/ui/sparql?query=" + encodeURIComponent(query);
  }

  function prefixLines(names) {
    return names.map((name) => `PREFIX ${name}: <${config.prefixes[name]}>`).join("\n");
  }

  window.Attest = { config, SCRIPT_HEADERS, el, getJson, postJson, errorMessage, showError, curie, localName, entityHref,
                    highlighted, passage, sparqlEditorHref, prefixLines };
})();
