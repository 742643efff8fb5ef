// Validates sutura's generated OpenAPI 3.1 document with an independent
// validator: the committed snapshot, and the document a running server
// serves (they must be the same document).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { readFile } from "node:fs/promises";
import SwaggerParser from "@apidevtools/swagger-parser";

const bin = process.env.SUTURA_BIN;
assert.ok(bin, "SUTURA_BIN must name the built sutura binary");

test("the committed OpenAPI document is valid OpenAPI 3.1", async () => {
  const doc = JSON.parse(await readFile(new URL("../../docs/openapi.json", import.meta.url), "utf8"));
  assert.equal(doc.openapi.slice(0, 3), "3.1");
  const api = await SwaggerParser.validate(structuredClone(doc));
  assert.ok(api.paths["/v1/query"].post);
  assert.ok(api.paths["/v1/catalog"].get);
});

test("the served /openapi.json is valid and describes its routes as the committed document does", async () => {
  const server = spawn(bin, ["serve"], { env: { PATH: process.env.PATH, SUTURA__SERVER__PORT: "0" }, stdio: ["ignore", "pipe", "ignore"] });
  try {
    const [first] = await once(createInterface({ input: server.stdout }), "line");
    const base = first.replace(/^listening on /, "");
    const served = await (await fetch(`${base}/openapi.json`)).json();
    const committed = JSON.parse(await readFile(new URL("../../docs/openapi.json", import.meta.url), "utf8"));
    // A deployment serves the routes its configuration mounts (no
    // /metrics without a metrics token, no RFC 9728 metadata without
    // inbound identity); each one it serves is described as committed.
    for (const [path, ops] of Object.entries(served.paths)) {
      assert.deepEqual(ops, committed.paths[path], path);
    }
    assert.ok(served.paths["/v1/query"] && served.paths["/mcp"]);
    await SwaggerParser.validate(served);
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
});
