import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// In development the API runs beside Vite (`pnpm llmgw serve`); in production it serves dist/ itself.
const api = process.env.LLMGW_API ?? "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      "/api": { target: api, changeOrigin: false },
      // Weights only: `/mirror` itself is the dashboard's page.
      "^/mirror/.+": { target: api, changeOrigin: false },
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: true,
  },
});
