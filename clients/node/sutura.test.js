// Drives sutura with the official MCP TypeScript SDK client over stdio, and
// runs the official MCP conformance suite against its Streamable HTTP
// endpoint. SUTURA_BIN names the built binary (scripts/test builds it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

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

test("the MCP conformance suite passes against /mcp", async () => {
  const server = spawn(bin, ["serve"], { env: { PATH: process.env.PATH, SUTURA__SERVER__PORT: "0" }, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const lines = createInterface({ input: server.stdout });
    const [first] = await once(lines, "line");
    const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
    assert.ok(m, `unexpected first line: ${first}`);
    for (const scenario of ["server-initialize", "tools-list", "ping", "dns-rebinding-protection"]) {
      const { stdout } = await run("npx", ["conformance", "server", "--url", `${m[1]}/mcp`, "--scenario", scenario], { timeout: 120000 });
      assert.match(stdout, /Passed: (\d+)\/\1, 0 failed/, `${scenario}:\n${stdout}`);
    }
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
});
