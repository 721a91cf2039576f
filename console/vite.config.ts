import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The moderator console: built into dist/console and served by the API under /console, with no CDN,
// no outside fonts and no inline script or style (the page's CSP allows only 'self').
export default defineConfig({
  root: 'console',
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    modulePreload: { polyfill: false },
  },
});
