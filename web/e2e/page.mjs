// What the end-to-end scripts share: a static server for dist/ and Debian's
// headless Chromium on its SwiftShader WebGPU adapter, each with a fresh
// profile.
import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { tmpdir } from "node:os";
import { chromium } from "playwright-core";

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };

/// Serves the files under `root` on a free local port; resolves to the
/// server and its base URL (ending in "/").
export async function serve(root) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(root, path === "/" ? "index.html" : path);
    try {
      if (!file.startsWith(root)) throw new Error("outside dist");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { server, base: `http://127.0.0.1:${server.address().port}/` };
}

/// Chromium with WebGPU on SwiftShader (`webgpu`) or without any (to check
/// the page's explanation), in a fresh profile (playwright passes it as
/// --user-data-dir); resolves to the browser and the profile's folder.
export async function launch({ webgpu = true } = {}) {
  const profile = await mkdtemp(join(tmpdir(), "skylight-chromium-"));
  const plain = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run"];
  const gpu = [
    "--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader",
    // Without a Vulkan (SwiftShader) compositor the WebGPU canvas never
    // reaches the page in headless mode, and Dawn's instance is lost
    // ("A valid external Instance reference no longer exists").
    "--enable-gpu", "--enable-features=Vulkan", "--use-vulkan=swiftshader",
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
  ];
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    ...(webgpu ? { viewport: { width: 1280, height: 800 } } : {}),
    args: webgpu ? [...gpu, ...plain] : plain,
  });
  return { browser, profile };
}

/// Where the page keeps its tuning cache (browser storage).
export const TUNING_KEY = "skylight-tuning";

/// Puts the tuning cache file `path` in the page's local storage (the
/// origin's, so set on an idle page first): the next run uses its bests.
export async function seedTuning(page, base, path) {
  const text = await readFile(path, "utf8");
  await page.goto(base);
  await page.evaluate(([k, v]) => window.localStorage.setItem(k, v), [TUNING_KEY, text]);
  console.log(`local storage \`${TUNING_KEY}\` seeded from ${path}`);
}

/// Polls the page's `window.skylightStatus` every 2 s until its job is
/// done, failed or found no WebGPU, or `timeoutMs` passes; says the last
/// status and resolves to it and the seconds waited.
export async function waitForJob(page, timeoutMs) {
  const start = Date.now();
  let status = "";
  while (Date.now() - start < timeoutMs) {
    status = String(await page.evaluate(() => window.skylightStatus ?? "loading"));
    if (status === "done" || status.startsWith("error") || status.startsWith("no-webgpu")) break;
    await page.waitForTimeout(2000);
  }
  const seconds = Number(((Date.now() - start) / 1000).toFixed(0));
  console.log(`status after ${seconds} s: ${status}`);
  return { status, seconds };
}

/// Closes the browser and the server and removes the browser's profile.
export async function close(browser, server, profile) {
  await browser.close();
  server.close();
  await rm(profile, { recursive: true, force: true });
}
