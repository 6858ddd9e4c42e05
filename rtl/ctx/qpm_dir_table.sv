// qpm_dir_table: the directory cache of the QP table walker (SPEC.md §3.2, §11.1).
//
// The page addresses of directory entries a walk read, so a walk usually skips the
// directory read: direct-mapped, Slots entries (1,024 by default: a workload over
// 65,536 QPs, 1,024 pages, fits), each entry's tag (the directory index above the slot
// bits), page address and valid bit in a RAM (qpm_ram_2p), cleared by a sweep after
// reset; an invalidation clears a slot at once. Exact, because every directory write
// goes through MAP_PAGE / UNMAP_PAGE, which drops the slot.
//
// A lookup is asked in one cycle and answered in the next (the RAM's registered read):
// qpm_mshr_file asks when it allocates a miss register, so the answer waits in the
// register before its walk. The answer is the entry as the cycle of the ask left it:
// a fill of the slot in that cycle is forwarded (the RAM returns the old word), an
// invalidation in that cycle or the next makes it a miss.
//
// There is no per-entry state on chip beyond this cache (docs/qp-table.md): whether a
// page is mapped is learned from the directory read itself, and whether a page still
// holds a valid QP is read from the page in memory by MAP/UNMAP_PAGE. So QPN_LIMIT can
// reach 2**24 at the cost of this cache alone.
module qpm_dir_table #(
  parameter int unsigned DirEntries   = 1 << 18,  // directory entries (index width)
  parameter int unsigned CacheEntries = 1024,     // directory cache slots (a power of 2)
  localparam int unsigned IdxW    = (DirEntries > 1) ? $clog2(DirEntries) : 1,
  localparam int unsigned Slots   = (CacheEntries < DirEntries) ? CacheEntries : DirEntries,
  localparam int unsigned SlotW   = (Slots > 1) ? $clog2(Slots) : 1,
  localparam int unsigned TagBits = (IdxW > SlotW) ? IdxW - SlotW : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // a directory write (MAP/UNMAP_PAGE) took effect: forget the entry
  input  logic              inval_i,
  input  logic [IdxW-1:0]   inval_idx_i,
  // a lookup, answered in the next cycle
  input  logic              look_i,
  input  logic [IdxW-1:0]   look_idx_i,
  output logic              look_hit_o,     // for the lookup of the cycle before
  output logic [63:12]      look_page_o,
  // a fill, from a directory read of a valid entry
  input  logic              fill_valid_i,
  input  logic [IdxW-1:0]   fill_idx_i,
  input  logic [63:12]      fill_page_i
);

  function automatic logic [TagBits-1:0] tag_of(logic [IdxW-1:0] idx);
    tag_of = TagBits'(idx >> SlotW);
  endfunction

  // After reset every slot is cleared once by a sweep, one slot per free cycle of the
  // write port, in Slots cycles (the RAM has no reset; a valid flop per slot cost 1,024
  // flip-flops and, in simulation, a process per slot). A slot not yet swept is never a
  // hit, so the sweep only delays the first hints. The write port's users, first first:
  // an invalidation (valid 0), a fill (valid 1), the sweep (valid 0).
  logic             swept;       // every slot cleared once since reset
  logic [SlotW-1:0] sweep_slot;  // the next slot the sweep clears
  logic             sweeping;
  logic             fill, sweep;
  assign fill  = fill_valid_i && !inval_i;   // an invalidation in the same cycle wins
  assign sweep = sweeping && !inval_i && !fill;

  logic             we;
  logic [SlotW-1:0] waddr;
  assign we    = inval_i || fill || sweep;
  assign waddr = inval_i ? SlotW'(inval_idx_i) : fill ? SlotW'(fill_idx_i) : sweep_slot;

  assign swept = !sweeping;
  qpm_reset_sweep #(.N(Slots)) u_sweep (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .step_i   (sweep),
    .active_o (sweeping),
    .idx_o    (sweep_slot)
  );

  logic               rd_valid;
  logic [TagBits-1:0] rd_tag;
  logic [63:12]       rd_page;
  qpm_ram_2p #(
    .Width (1 + TagBits + 52),
    .Depth (Slots)
  ) u_ram (
    .clk_i   (clk_i),
    .re_i    (look_i),
    .raddr_i (SlotW'(look_idx_i)),
    .rdata_o ({rd_valid, rd_tag, rd_page}),
    .we_i    (we),
    .waddr_i (waddr),
    .wdata_i ({fill, tag_of(fill_idx_i), fill_page_i}),
    .wmask_i ({1'b1, {(TagBits + 52){fill}}})   // a clear writes the valid bit alone
  );

  // The lookup's cycle, kept for its answer: the RAM returns the word as it was before
  // that cycle's write, so a write of the slot then is applied here: a fill forwarded,
  // an invalidation a miss; and a slot the sweep had not cleared yet is a miss. The
  // compares are registered in every cycle and read only after a lookup (look_q): the
  // lookup's request, late in its cycle (a miss register's allocation), meets no enable.
  logic            look_q, fwd_q, fwd_hit_q, look_ok_q;
  logic [IdxW-1:0] look_idx_q;
  logic [63:12]    fwd_page_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      look_q     <= 1'b0;
      look_ok_q  <= 1'b0;
      fwd_q      <= 1'b0;
      fwd_hit_q  <= 1'b0;
      look_idx_q <= '0;
      fwd_page_q <= '0;
    end else begin
      look_q     <= look_i;
      look_idx_q <= look_idx_i;
      look_ok_q  <= (swept || SlotW'(look_idx_i) < sweep_slot)
                 && !(inval_i && SlotW'(inval_idx_i) == SlotW'(look_idx_i));
      fwd_q      <= fill && SlotW'(fill_idx_i) == SlotW'(look_idx_i);
      fwd_hit_q  <= fill && fill_idx_i == look_idx_i;
      fwd_page_q <= fill_page_i;
    end
  end

  // An invalidation in the answer's cycle makes it a miss too.
  assign look_hit_o  = look_q && (fwd_q ? fwd_hit_q
                                        : look_ok_q && rd_valid && rd_tag == tag_of(look_idx_q))
                    && !(inval_i && inval_idx_i == look_idx_q);
  assign look_page_o = fwd_q ? fwd_page_q : rd_page;

endmodule
