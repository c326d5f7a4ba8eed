from builder.cli.main import console

console()
