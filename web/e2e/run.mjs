// End-to-end test of the web demo: serve dist/, open it in headless Chromium
// on its SwiftShader WebGPU adapter, start a preset through the URL, wait
// for the run to end, and check that validated results came back for the
// stream kernels and su3 in f32 and df64. Saves assets/screenshots/web.png.
// Then opens a link whose job cannot start and checks that the page ends it
// with the reason, and opens the page in a Chromium without WebGPU and
// checks that it says so.
//
//   node web/e2e/run.mjs [dist] [screenshot.png] [--preset QUERY] [--results FILE.json]
//       [--tuning CACHE.json]
//
// --preset runs another URL query (`run=lbm,milc&size=small`) and checks only
// that it ended with every result validated (and skips the no-WebGPU page);
// --results saves the JSON the page's download link offers; --tuning puts a
// tuning cache in the page's storage first, so the run uses its bests.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { close, launch, seedTuning, serve, waitForJob } from "./page.mjs";

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { preset: { type: "string" }, results: { type: "string" }, tuning: { type: "string" } },
});
const root = resolve(positionals[0] ?? "dist");
const shot = resolve(positionals[1] ?? "assets/screenshots/web.png");
const timeoutMs = Number(process.env.SKYLIGHT_WEB_TIMEOUT_S ?? 1500) * 1000;
const query = opts.preset ? "?" + opts.preset.replace(/^\?/, "") :
  "?run=stream,su3&precision=f32,df64&size=small&samples=3" +
  "&kernel=copy,mul,add,triad,dot&variant=site,element&layout=soa&wg=64";

const { server, base } = await serve(root);
const url = `${base}${query}`;
const { browser, profile } = await launch();
let failed = null;
try {
  const page = browser.pages()[0] ?? await browser.newPage();
  page.on("console", (m) => { if (m.type() === "error" || process.env.SKYLIGHT_WEB_VERBOSE) console.error("page:", m.text()); });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  if (opts.tuning) await seedTuning(page, base, resolve(opts.tuning));
  console.log(`opening ${url}`);
  await page.goto(url);
  const { status } = await waitForJob(page, timeoutMs);
  await page.waitForTimeout(1500); // let the last points draw
  await page.screenshot({ path: shot });
  console.log(`screenshot: ${shot}`);
  if (status !== "done") throw new Error(`the run did not finish: ${status}`);

  if (opts.results) {
    // What a visitor gets from the header's link, byte for byte.
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    await download.saveAs(resolve(opts.results));
    console.log(`results: ${resolve(opts.results)}`);
  }
  const file = await page.evaluate(() => window.skylightResults);
  const records = file?.records ?? [];
  const ok = (app, kernel, precision) =>
    records.some((r) => r.app === app && (kernel === null || r.kernel === kernel) &&
      r.precision === precision && r.validation.passed && r.gbps > 0);
  // The default run must cover these; a --preset only has to validate.
  const missing = records.length ? [] : ["any case"];
  for (const precision of opts.preset ? [] : ["f32", "df64"]) {
    for (const k of ["copy", "mul", "add", "triad", "dot"]) {
      if (!ok("stream", k, precision)) missing.push(`stream/${k} ${precision}`);
    }
    if (!ok("su3", null, precision)) missing.push(`su3 ${precision}`);
  }
  const bad = records.filter((r) => !r.validation.passed);
  // Every sample spans 50 quanta of its timer's resolution, which the
  // record states (runs_per_sample is left out where it is 1).
  const runs = (r) => r.runs_per_sample ?? 1;
  const short = records.filter((r) =>
    !(r.timer_resolution_s > 0) || r.stats.min * runs(r) < 50 * r.timer_resolution_s);
  for (const r of records) {
    console.log(`${r.app}/${r.kernel} [${r.variant}] ${r.precision}: ` +
      `${r.gbps.toFixed(2)} GB/s, ${r.gflops.toFixed(2)} GFLOP/s, ${r.timing}, ` +
      `${runs(r)} run(s) a sample, timer resolution ${r.timer_resolution_s} s, ` +
      `${r.validation.passed ? "ok" : "FAILED " + r.validation.detail}`);
  }
  if (missing.length) throw new Error(`no validated result for: ${missing.join(", ")}`);
  if (bad.length) throw new Error(`${bad.length} results failed validation`);
  if (short.length) throw new Error(`${short.length} results have samples under 50 timer quanta`);
  console.log(`web e2e: ${records.length} validated results on ${records[0].platform.name}`);
  if (!opts.preset) {
    // A link whose job cannot start ends with the reason, never "running".
    await page.goto(`${base}?run=su3&wg=`);
    const refused = await waitForJob(page, 120000);
    if (!refused.status.startsWith("error") || !refused.status.includes("`wg`")) {
      throw new Error(`a job with an empty \`wg\` ended "${refused.status}", not with its error`);
    }
    console.log(`a job that cannot start says: ${refused.status}`);
    // A size past what the page and the adapter hold is refused before
    // any work, naming the largest that fits.
    await page.goto(`${base}?run=lbm&size=2048&precision=f32`);
    const large = await waitForJob(page, 120000);
    if (!large.status.startsWith("error") || !large.status.includes("largest")) {
      throw new Error(`lbm at L = 2048 ended "${large.status}", not refused with the largest size`);
    }
    console.log(`a size too large says: ${large.status}`);
  }
} catch (e) {
  failed = e;
} finally {
  await close(browser, server, profile);
}
// The same page in a Chromium without WebGPU must explain itself, not show
// a blank canvas.
if (!failed && !opts.preset) {
  const again = await serve(root);
  const { browser: nogpu, profile: plain } = await launch({ webgpu: false });
  try {
    const page = nogpu.pages()[0] ?? await nogpu.newPage();
    await page.goto(again.base);
    await page.waitForFunction(() => window.skylightStatus !== undefined, null, { timeout: 60000 });
    const status = await page.evaluate(() => window.skylightStatus);
    const shown = await page.isVisible("#no-webgpu");
    if (!String(status).startsWith("no-webgpu") || !shown) {
      throw new Error(`without WebGPU the page said "${status}" (message visible: ${shown})`);
    }
    console.log(`without WebGPU the page explains: ${status}`);
  } catch (e) {
    failed = e;
  } finally {
    await close(nogpu, again.server, plain);
  }
}
if (failed) {
  console.error(`web e2e FAILED: ${failed.message}`);
  process.exit(1);
}
