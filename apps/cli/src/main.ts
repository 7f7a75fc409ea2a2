const [command] = process.argv.slice(2);
console.log(`llmgw 0.1.0 — ${command ?? "no command"}: the server is coming (see the issues).`);
