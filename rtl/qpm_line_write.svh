// qpm_line_write.svh: the fields of the QP cache's line-write bundle (lw), the two writes
// a cycle to the tags and line bits in RAM (qpm_line_write, docs/qp-cache.md section 19):
//   A  a fill (tag, valid, pinned), a pin bit, or the reset sweep (every way);
//   B  a miss register's take or a maintenance drop: the line invalid and unpinned.
// A and B never write one way in one cycle. Included in the body of a module that has
// Ways, SetW, WayW and EntW; its header has LwW = 2 * (SetW + WayW) + EntW + 6.
localparam int unsigned LwBWay  = 0;
localparam int unsigned LwBSet  = LwBWay + WayW;
localparam int unsigned LwB     = LwBSet + SetW;     // write B
localparam int unsigned LwAEnt  = LwB + 1;           // A's entry {tag, valid, pinned}
localparam int unsigned LwAMask = LwAEnt + EntW;     // ... which of the three it writes
localparam int unsigned LwAWay  = LwAMask + 3;
localparam int unsigned LwASet  = LwAWay + WayW;
localparam int unsigned LwAAll  = LwASet + SetW;     // ... on every way (the sweep)
localparam int unsigned LwA     = LwAAll + 1;        // write A

// The ways of a word of set `set` that lw's write B hits (the kept words apply a take a
// cycle late and clear these ways on the way out: qpm_cache_port, qpm_tag_views).
function automatic logic [Ways-1:0] lw_b_hit(logic [LwW-1:0] lw, logic [SetW-1:0] set);
  logic [Ways-1:0] hit;
  for (int unsigned w = 0; w < Ways; w++) begin
    hit[w] = lw[LwB] && lw[LwBSet +: SetW] == set && lw[LwBWay +: WayW] == WayW'(w);
  end
  lw_b_hit = hit;
endfunction
