import { ensureBuild } from "../../sandbox/demo/app-process";

// Suites that run the production build (the demo, the admin in a browser) share one build,
// made here before any of them starts, so no two files write build/ at once.
export default function setup() {
  ensureBuild(() => {});
}
