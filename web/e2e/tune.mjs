// Tunes apps in the web page on headless Chromium's SwiftShader WebGPU
// adapter and writes the browser's tuning cache (what the page keeps in
// local storage), then runs the same apps at their defaults (no cache) and
// tuned (the cache), in the same browser, and saves both result files.
//
//   node web/e2e/tune.mjs [dist] --apps su3,stream --budget 120 \
//       --cache benchmarks/tuning/browser-swiftshader.json \
//       [--runs DIR] [--size small] [--precision f32] [--samples 5] [--from CACHE]
//
// The tune is the page's Tune action started through the URL
// (`?run=APPS&size=small&tune=SECONDS`); the cache is read back from local
// storage (key `skylight-tuning`). With --runs, DIR gets untuned.json and
// tuned.json: the page's result files of a run without the cache and of
// one with it (`scripts/tune-gain` pairs them). --from seeds local storage
// with a cache file first, so a tune goes on where that one stopped.
import { writeFile, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { close, launch, serve, waitForJob, seedTuning, TUNING_KEY } from "./page.mjs";

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    apps: { type: "string", default: "su3" },
    budget: { type: "string", default: "120" },
    cache: { type: "string", default: "browser-swiftshader.json" },
    runs: { type: "string" },
    size: { type: "string", default: "small" },
    precision: { type: "string", default: "f32" },
    samples: { type: "string", default: "5" },
    from: { type: "string" },
  },
});
const root = resolve(positionals[0] ?? "dist");
// The tune's budget, then each run, may take this long in SwiftShader.
const timeoutMs = (Number(opts.budget) + Number(process.env.SKYLIGHT_WEB_TIMEOUT_S ?? 1200)) * 1000;

const { server, base } = await serve(root);
const common = `run=${opts.apps}&size=${opts.size}&precision=${opts.precision}`;

// The same browser as run.mjs: SwiftShader's WebGPU with a Vulkan compositor.
const { browser, profile } = await launch();

/// Opens the page with `query` and waits for the job it starts to end.
async function job(page, query) {
  console.log(`opening ${base}?${query}`);
  await page.goto(`${base}?${query}`);
  const { status, seconds } = await waitForJob(page, timeoutMs);
  if (status !== "done") throw new Error(`${query}: did not finish: ${status}`);
  return { seconds, file: await page.evaluate(() => window.skylightResults) };
}

let failed = null;
try {
  const page = browser.pages()[0] ?? await browser.newPage();
  page.on("console", (m) => {
    const t = m.text();
    if (m.type() === "error" || process.env.SKYLIGHT_WEB_VERBOSE || t.includes("tuned ")) {
      console.error("page:", t);
    }
  });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  if (opts.from) await seedTuning(page, base, resolve(opts.from));
  const tuned = await job(page, `${common}&tune=${opts.budget}`);
  const text = await page.evaluate((k) => window.localStorage.getItem(k), TUNING_KEY);
  if (!text) throw new Error(`the tune left nothing in local storage \`${TUNING_KEY}\``);
  const cache = JSON.parse(text);
  await mkdir(resolve(opts.cache, ".."), { recursive: true });
  await writeFile(resolve(opts.cache), JSON.stringify(cache, null, 2) + "\n");
  const entries = cache.entries ?? [];
  console.log(`tune: ${tuned.seconds} s, ${entries.length} unit(s): ${resolve(opts.cache)}`);
  for (const e of entries) {
    const c = e.confirm;
    const verdict = c ? `${c.verdict} (${(c.defaults_s * 1e3).toFixed(3)} ms -> ${(c.tuned_s * 1e3).toFixed(3)} ms, ${c.rounds} rounds)` : "best is the defaults or not re-measured";
    console.log(`  ${e.app}/${e.kernel} ${e.precision}: ${e.trials.length}/${e.space} tried, ${e.best?.variant ?? "-"}: ${verdict}`);
  }
  if (opts.runs) {
    await mkdir(resolve(opts.runs), { recursive: true });
    const run = `${common}&samples=${opts.samples}`;
    // Defaults first: the page without its cache, then with it again.
    await page.evaluate((k) => window.localStorage.removeItem(k), TUNING_KEY);
    const plain = await job(page, run);
    await page.evaluate(([k, v]) => window.localStorage.setItem(k, v), [TUNING_KEY, text]);
    const withCache = await job(page, run);
    for (const [name, r] of [["untuned.json", plain], ["tuned.json", withCache]]) {
      const path = join(resolve(opts.runs), name);
      await writeFile(path, JSON.stringify(r.file, null, 2) + "\n");
      const n = (r.file?.records ?? []).length;
      const marked = (r.file?.records ?? []).filter((x) => x.tuning && x.tuning !== "defaults").length;
      console.log(`${name}: ${n} records (${marked} tuned), ${r.seconds} s: ${path}`);
    }
  }
} catch (e) {
  failed = e;
} finally {
  await close(browser, server, profile);
}
if (failed) {
  console.error(`web tune FAILED: ${failed.message}`);
  process.exit(1);
}
