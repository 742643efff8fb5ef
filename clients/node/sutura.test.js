// Drives sutura with the official MCP TypeScript SDK client over stdio, and
// runs the official MCP conformance suite against its Streamable HTTP
// endpoint: every server scenario that applies to what sutura offers. SUTURA_BIN names the built binary (scripts/test builds it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const bin = process.env.SUTURA_BIN;
assert.ok(bin, "SUTURA_BIN must name the built sutura binary");
const run = promisify(execFile);

test("the TypeScript SDK client lists, describes, asks and is refused over stdio", async () => {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: { PATH: process.env.PATH }, stderr: "pipe" });
  const client = new Client({ name: "sutura-node-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["ask_metric", "describe_catalog"]);
    for (const t of tools) {
      assert.equal(t.annotations.readOnlyHint, true);
      assert.equal(t.inputSchema.additionalProperties, false);
    }

    const cat = await client.callTool({ name: "describe_catalog", arguments: {} });
    assert.ok(!cat.isError);
    assert.ok(cat.structuredContent.metrics.some((m) => m.name === "net_sales"));
    assert.match(cat.structuredContent.definition_digest, /^[0-9a-f]{64}$/);

    const ans = await client.callTool({
      name: "ask_metric",
      arguments: { metrics: ["net_sales"], grain: "year", range: { start: "2025-01-01", end: "2026-01-01" } },
    });
    assert.ok(!ans.isError);
    assert.equal(ans.structuredContent.outcome, "answer");
    assert.deepEqual(ans.structuredContent.rows, [["2025-01-01", "24032720"]]);
    assert.match(ans.content[0].text, /^period\tnet_sales\n2025-01-01\t24032720\n/);

    const ref = await client.callTool({
      name: "ask_metric",
      arguments: {
        metrics: ["net_sales"], grain: "month", range: { start: "2025-01-01", end: "2025-02-01" },
        filters: [{ op: "eq", dimension: "area", value: "Atlantis" }],
      },
    });
    assert.ok(!ref.isError, "a refusal is a result, not an error");
    assert.equal(ref.structuredContent.outcome, "refusal");
    assert.equal(ref.structuredContent.reason.code, "dimension_value_not_allowed");
    assert.ok(!JSON.stringify(ref).includes("Atlantis"), "a rejected value is never echoed");

    const bad = await client.callTool({ name: "ask_metric", arguments: { metrics: ["net_sales"], grain: "year", range: { start: "2025-01-01", end: "2026-01-01" }, sql: "select 1" } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /sql/);
  } finally {
    await client.close();
  }
});

// The MCP conformance suite's server scenarios (npx conformance list
// --server) each either apply to sutura, and then run and must pass every
// check they make, or are named here with the reason they do not. A
// scenario a later version of the suite adds fails the test until it is
// sorted into one list or the other, and a run that made no check fails:
// "Passed: 0/0" is not a pass.
const applicable = ["server-initialize", "ping", "logging-set-level", "tools-list", "dns-rebinding-protection"];
const fixtureTool = (name) => `calls the suite's fixture tool ${name}; sutura serves only its own tools (describe_catalog, ask_metric), which the SDK client test above drives`;
const notApplicable = {
  "tools-call-simple-text": fixtureTool("test_simple_text"),
  "tools-call-image": fixtureTool("test_image_content"),
  "tools-call-audio": fixtureTool("test_audio_content"),
  "tools-call-embedded-resource": fixtureTool("test_embedded_resource"),
  "tools-call-mixed-content": fixtureTool("test_multiple_content_types"),
  "tools-call-with-logging": fixtureTool("test_tool_with_logging"),
  "tools-call-error": fixtureTool("test_error_handling"),
  "tools-call-with-progress": fixtureTool("test_tool_with_progress"),
  "tools-call-sampling": fixtureTool("test_sampling") + "; sutura never asks the client to sample",
  "tools-call-elicitation": fixtureTool("test_elicitation") + "; sutura never asks the client for input",
  "json-schema-2020-12": fixtureTool("json_schema_2020_12_tool") + "; sutura's own input schemas are generated, snapshotted and listed by tools-list",
  "elicitation-sep1034-defaults": "elicitation: sutura never asks the client for input",
  "elicitation-sep1330-enums": "elicitation: sutura never asks the client for input",
  "server-sse-polling": "needs a session and SSE streams; sutura's /mcp is stateless with JSON responses (no session id, no SSE)",
  "server-sse-multiple-streams": "needs a session and SSE streams; sutura's /mcp is stateless with JSON responses (no session id, no SSE)",
  "completion-complete": "sutura declares no completions capability",
  "resources-list": "sutura declares no resources capability",
  "resources-read-text": "sutura declares no resources capability",
  "resources-read-binary": "sutura declares no resources capability",
  "resources-templates-read": "sutura declares no resources capability",
  "resources-subscribe": "sutura declares no resources capability",
  "resources-unsubscribe": "sutura declares no resources capability",
  "prompts-list": "sutura declares no prompts capability (its prompt is the server's instructions)",
  "prompts-get-simple": "sutura declares no prompts capability",
  "prompts-get-with-args": "sutura declares no prompts capability",
  "prompts-get-embedded-resource": "sutura declares no prompts capability",
  "prompts-get-with-image": "sutura declares no prompts capability",
};

test("the MCP conformance suite passes every scenario that applies to /mcp", async () => {
  const { stdout: listing } = await run("npx", ["conformance", "list", "--server"], { timeout: 120000 });
  const scenarios = [...listing.matchAll(/^\s+- ([a-z0-9-]+)\s*$/gm)].map((m) => m[1]);
  assert.ok(scenarios.length > 0, `the suite listed no server scenarios:\n${listing}`);
  const unsorted = scenarios.filter((s) => !applicable.includes(s) && !(s in notApplicable));
  assert.deepEqual(unsorted, [], "scenarios neither run nor named as not applicable (sort them into applicable or notApplicable)");
  const gone = [...applicable, ...Object.keys(notApplicable)].filter((s) => !scenarios.includes(s));
  assert.deepEqual(gone, [], "scenarios named here that the suite no longer lists");

  const server = spawn(bin, ["serve"], { env: { PATH: process.env.PATH, SUTURA__SERVER__PORT: "0" }, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const lines = createInterface({ input: server.stdout });
    const [first] = await once(lines, "line");
    const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
    assert.ok(m, `unexpected first line: ${first}`);
    const url = `${m[1]}/mcp`;

    // The capabilities the not-applicable reasons rest on.
    const client = new Client({ name: "sutura-node-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const caps = client.getServerCapabilities();
    await client.close();
    assert.ok(caps.tools, "sutura offers tools");
    assert.ok(caps.logging, "sutura offers logging (logging-set-level applies)");
    for (const absent of ["resources", "prompts", "completions"]) {
      assert.equal(caps[absent], undefined, `sutura now offers ${absent}: move its scenarios from notApplicable to applicable`);
    }

    let ran = 0;
    for (const scenario of applicable) {
      const { stdout } = await run("npx", ["conformance", "server", "--url", url, "--scenario", scenario], { timeout: 120000 });
      const r = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(stdout);
      assert.ok(r, `${scenario}: no result line:\n${stdout}`);
      const [passed, total, failed, warnings] = r.slice(1).map(Number);
      assert.ok(total > 0, `${scenario} made no check (Passed: 0/0 is not a pass):\n${stdout}`);
      assert.deepEqual({ passed, failed, warnings }, { passed: total, failed: 0, warnings: 0 }, `${scenario}:\n${stdout}`);
      ran++;
    }
    assert.equal(ran, applicable.length);
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
});
