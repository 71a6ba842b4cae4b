// Ask: POST /answer (mode auto), the answer's citations as chips by confidence band, each opening its evidence.
(function () {
  "use strict";
  const { config, el, getJson, postJson, showError, curie, localName, entityHref, passage, sparqlEditorHref,
          prefixLines } = window.Attest;

  const MAX_PASSAGES = 3;

  // asserted (entity found, relation asserted), inferred (by depth), fuzzy (label match), missing (nothing)
  function band(citation) {
    if (citation.status === "found" || citation.status === "asserted") return "asserted";
    if (citation.status === "inferred") return "inferred";
    if (citation.status === "label_match") return "fuzzy";
    return "missing";
  }

  function bandText(citation) {
    const b = band(citation);
    if (b === "inferred") return `inferred, depth ${citation.depth}`;
    if (b === "fuzzy") return "fuzzy match";
    if (b === "missing") return citation.status === "invalid" ? "malformed" : "not found";
    return "asserted";
  }

  function chip(citation) {
    const b = band(citation);
    const depth = b === "inferred" ? Math.min(citation.depth || 1, 4) : null;
    const name = citation.label || citation.ref;
    return el("button", {
      type: "button", class: `chip band-${b}${depth ? " depth-" + depth : ""}`, "data-band": b,
      title: `${citation.marker} · ${bandText(citation)} · confidence ${citation.confidence.toFixed(2)}`,
      onclick: (event) => openEvidence(citation, event.currentTarget),
    }, name, el("span", { class: "band" }, ` ${bandText(citation)} ${citation.confidence.toFixed(2)}`));
  }

  // the claim's text with each marker replaced by its chip, in the order the citations were found
  function claimNode(claim) {
    const flags = claim.flags || [];
    const cls = ["claim"];
    if (flags.includes("removed")) cls.push("claim-removed");
    else if (flags.includes("low_confidence")) cls.push("claim-flagged");
    if (flags.includes("ungrounded")) cls.push("claim-ungrounded");
    const node = el("span", { class: cls.join(" "), "data-confidence": claim.confidence });
    let rest = claim.text;
    const text = el("span", { class: flags.includes("removed") ? "struck" : null });
    claim.citations.forEach((citation) => {
      const at = rest.indexOf(citation.marker);
      if (at < 0) return;
      text.append(rest.slice(0, at), chip(citation));
      rest = rest.slice(at + citation.marker.length);
    });
    text.append(rest);
    node.append(text);
    if (flags.includes("removed")) node.append(el("span", { class: "flag flag-removed" }, "removed: confidence under 0.3"));
    else if (flags.includes("low_confidence")) node.append(el("span", { class: "flag flag-low" }, "flagged: confidence under 0.5"));
    if (flags.includes("ungrounded")) node.append(el("span", { class: "flag flag-ungrounded" }, "no citation"));
    return node;
  }

  function iriTerm(iri) {
    return `<${iri.replace(/[<>"{}|^`\\\s]/g, encodeURIComponent)}>`;
  }

  // a query over every graph for the cited facts (and the cited entities' types and labels), with where they are held
  function citedFactsQuery(report) {
    const relations = new Map();
    const entities = new Set();
    report.claims.forEach((claim) => claim.citations.forEach((c) => {
      if (c.kind === "relation" && c.triple && !c.triple[2].startsWith('"')) relations.set(c.triple.join(" "), c.triple);
      if (c.kind === "entity" && c.iri) entities.add(c.iri);
    }));
    const branches = [];
    if (relations.size) {
      const rows = [...relations.values()].map((t) => `    (${t.map(iriTerm).join(" ")})`).join("\n");
      branches.push(`  { VALUES (?s ?p ?o) {\n${rows}\n  }\n    GRAPH ?g { ?s ?p ?o } }`);
    }
    if (entities.size) {
      branches.push(`  { VALUES ?s { ${[...entities].map(iriTerm).join(" ")} }\n    VALUES ?p { rdf:type rdfs:label }\n` +
                    "    GRAPH ?g { ?s ?p ?o } }");
    }
    if (!branches.length) return null;
    return `${prefixLines(["rdf", "rdfs"])}\n\n# the facts and entities the answer cites, and the graphs that hold them\n` +
      `SELECT DISTINCT ?s ?p ?o ?g WHERE {\n${branches.join("\n  UNION\n")}\n}\nORDER BY ?s ?p ?o ?g`;
  }

  function render(report) {
    const box = document.getElementById("answer");
    const summary = el("p", { class: "answer-meta muted" },
      `mode ${report.mode} · confidence ${report.confidence.toFixed(2)}`,
      report.flags.length ? ` · ${report.flags.join(", ")}` : "");
    const body = el("div", { class: "answer-text" });
    let at = 0;
    report.claims.forEach((claim) => {
      if (claim.start > at) body.append(report.original.slice(at, claim.start));
      body.append(claimNode(claim));
      at = claim.end;
    });
    body.append(report.original.slice(at));
    // the query whose rows hold the answers (the walks of the paths they end), and one for the cited facts' graphs
    const cited = citedFactsQuery(report);
    const links = el("p", { class: "answer-links" },
      report.sparql ? el("a", { id: "show-sparql", href: sparqlEditorHref(report.sparql),
                                title: "the query that walks the answer's paths: its rows are the answers" },
                         "Show the SPARQL") : null,
      report.sparql && cited ? " · " : null,
      cited ? el("a", { id: "show-cited-facts", href: sparqlEditorHref(cited) }, "Show the cited facts") : null);
    const notes = report.notes.length ? el("ul", { class: "notes muted" }, report.notes.map((n) => el("li", {}, n))) : null;
    box.replaceChildren(summary, body, links, notes || "");
  }

  function panel() {
    const aside = document.getElementById("evidence");
    aside.hidden = false;
    return aside;
  }

  let opener = null; // the chip whose evidence is open: focus returns to it when the panel closes

  function closeEvidence() {
    document.getElementById("evidence").hidden = true;
    if (opener && opener.isConnected) opener.focus();
  }

  function closeButton(origin) {
    opener = origin;
    return el("button", { type: "button", class: "close", "aria-label": "Close the evidence (Escape)",
                          onclick: closeEvidence }, "×");
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !document.getElementById("evidence").hidden) closeEvidence();
  });

  function entityId(iri) {
    return iri.startsWith(config.entityBase) ? iri.slice(config.entityBase.length) : curie(iri);
  }

  async function entityCard(citation, aside, origin) {
    const id = entityId(citation.iri);
    const e = await getJson(`/entities/${encodeURIComponent(id)}?limit=${MAX_PASSAGES}`);
    const card = el("article", { class: "card entity-card" },
      el("h2", {}, el("a", { href: entityHref(e.iri) }, e.label)),
      el("p", { class: "muted" }, e.types.map(curie).join(", ")),
      e.descriptions.length ? el("p", {}, e.descriptions[0]) : null,
      e.alt_labels.length ? el("p", { class: "muted" }, "also: " + e.alt_labels.join(", ")) : null,
      citation.status === "label_match" ? el("p", { class: "flag flag-low" },
        `matched by label “${citation.ref}” (similarity ${Math.round(citation.match)}), not by id`) : null,
      el("h3", {}, "Sources"));
    aside.replaceChildren(closeButton(origin), card);
    if (!e.sources.length) card.append(el("p", { class: "muted" }, "no recorded mention"));
    for (const source of e.sources.slice(0, MAX_PASSAGES)) card.append(await passage(source.chunk, [e.iri]));
  }

  function tripleText(t) {
    const short = (term) => (term.startsWith("<") ? localName(term.slice(1, -1)) : term);
    return `${short(t.s)} ${short(t.p)} ${short(t.o)}`;
  }

  function iriOf(term) {
    return term.startsWith("<") ? term.slice(1, -1) : term;
  }

  // one node of /explain's proof tree: the triple, its rule and depth, its premises, and where asserted ones come from
  function proofNode(node) {
    const asserted = node.status === "asserted";
    const item = el("li", { class: `proof-step ${asserted ? "premise-asserted" : "premise-inferred"}` },
      el("span", { class: "triple" }, tripleText(node.triple)), " ",
      el("span", { class: `badge ${asserted ? "band-asserted" : "band-inferred"}` },
        asserted ? "asserted" : `inferred by ${node.rule}, depth ${node.depth}`));
    (node.sources || []).forEach((source) => {
      if (!source.document) {
        if (source.graph.endsWith("/graph/facts")) return; // the fact summary: the document graphs are listed too
        item.append(el("div", { class: "muted source-line" }, `in ${localName(source.graph)}`));
        return;
      }
      (source.chunks || []).slice(0, MAX_PASSAGES).forEach((chunk) => {
        const holder = el("div", { class: "source-line" });
        const button = el("button", { type: "button", class: "link-button", onclick: async () => {
          button.disabled = true;
          holder.append(await passage(chunk, [iriOf(node.triple.s), iriOf(node.triple.o)]));
        } }, `passage in ${localName(source.document)}`);
        holder.append(button);
        item.append(holder);
      });
    });
    if (node.premises && node.premises.length) item.append(el("ul", {}, node.premises.map(proofNode)));
    if (node.truncated) item.append(el("div", { class: "muted" }, "(cut at the depth bound)"));
    return item;
  }

  function explainParams(triple) {
    const [s, p, o] = triple;
    const params = new URLSearchParams({ s, p });
    const literal = o.match(/^"([\s\S]*)"(?:\^\^<([^>]*)>|@[A-Za-z-]+)?$/);
    if (literal) {
      params.set("o_literal", JSON.parse(`"${literal[1]}"`));
      if (literal[2]) params.set("o_datatype", literal[2]);
    } else {
      params.set("o", o);
    }
    return params;
  }

  async function proofTree(citation, aside, origin) {
    const tree = await getJson(`/explain?${explainParams(citation.triple)}`);
    const card = el("article", { class: "card proof-card" },
      el("h2", {}, citation.label || citation.ref),
      el("p", { class: "muted" }, tree.status === "asserted" ? "asserted in a document" :
        `inferred (depth ${tree.depth}): its proof down to asserted triples`),
      el("ul", { class: "proof" }, proofNode(tree)));
    aside.replaceChildren(closeButton(origin), card);
  }

  async function openEvidence(citation, origin) {
    const aside = panel();
    aside.replaceChildren(closeButton(origin), el("p", { class: "muted" }, "loading evidence…"));
    try {
      if (band(citation) === "missing") {
        aside.replaceChildren(closeButton(origin), el("article", { class: "card" },
          el("h2", {}, citation.marker), el("p", {}, "Nothing in the graph matches this citation (confidence 0).")));
      } else if (citation.kind === "entity") {
        await entityCard(citation, aside, origin);
      } else {
        await proofTree(citation, aside, origin);
      }
    } catch (error) {
      aside.replaceChildren(closeButton(origin), el("p", { class: "error" }, error.message));
    }
    aside.focus();
  }

  async function ask(question) {
    const button = document.querySelector("#ask button[type=submit]");
    button.disabled = true;
    showError("");
    document.getElementById("evidence").hidden = true;
    document.getElementById("answer").replaceChildren(el("p", { class: "muted" }, "answering…"));
    try {
      render(await postJson("/answer", { question, mode: "auto" }));
    } catch (error) {
      document.getElementById("answer").replaceChildren();
      showError(error.message);
    } finally {
      button.disabled = false;
    }
  }

  document.getElementById("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = document.getElementById("question").value.trim();
    if (!question) return;
    history.replaceState(null, "", `?q=${encodeURIComponent(question)}`);
    ask(question);
  });

  const asked = new URLSearchParams(location.search).get("q");
  if (asked) {
    document.getElementById("question").value = asked;
    ask(asked);
  }
})();
