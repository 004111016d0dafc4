"User-voice request templates, one module per server: `PHRASES = {tool: (template, ...)}`, read by `prove_nb.realize.phrasings`."
