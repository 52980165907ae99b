-- Headless Neovim: open $RTLINT_FILE, attach `rtlint server` ($RTLINT_CMD, JSON list),
-- wait for its diagnostics and write them to $RTLINT_OUT as JSON. Used by
-- tests/test_server_neovim.py; works with Neovim 0.7 (vim.lsp.start_client) and newer
-- (vim.lsp.start, as docs/editors.md shows).
local file, out = os.getenv("RTLINT_FILE"), os.getenv("RTLINT_OUT")
local cmd = vim.fn.json_decode(os.getenv("RTLINT_CMD"))
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buffer = vim.api.nvim_get_current_buf()
local config = { name = "rtlint", cmd = cmd, root_dir = vim.fn.fnamemodify(file, ":h") }
if vim.lsp.start then
  vim.lsp.start(config)
else
  vim.lsp.buf_attach_client(buffer, vim.lsp.start_client(config))
end
local arrived = vim.wait(120000, function()
  return #vim.diagnostic.get(buffer) > 0
end, 50)
local found = {}
for _, d in ipairs(vim.diagnostic.get(buffer)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(found, {
    line = d.lnum, col = d.col, end_line = d.end_lnum, end_col = d.end_col,
    code = lsp.code or d.code, source = d.source, message = d.message,
    href = (lsp.codeDescription or {}).href,
  })
end
vim.fn.writefile({ vim.fn.json_encode({ arrived = arrived, diagnostics = found }) }, out)
vim.cmd("qa!")
