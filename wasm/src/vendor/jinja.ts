// @huggingface/jinja, the maintained renderer of chat templates. In the repository this
// file re-exports the dev dependency; the package build (scripts/bundle-vendor.mjs)
// replaces dist/vendor/jinja.js with the library bundled into one file, so the
// published package keeps no runtime dependency. Loaded on demand (chat-template.ts).
export { Template } from '@huggingface/jinja';
