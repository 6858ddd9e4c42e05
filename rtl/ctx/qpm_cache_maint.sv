// qpm_cache_maint: the QP cache's maintenance engine: SYNC_CACHE and MAP/UNMAP_PAGE
// (SPEC.md §3.2, §4; docs/qp-table.md, docs/qp-cache.md).
//
// Maintenance runs beside traffic (SPEC §11.3; issue 27 item 2): the pipe hands a
// command over and keeps taking requests. The engine takes the pipe's read slot for one
// cycle per dirty line (a read-out has priority over a request's read) and never in two
// cycles in a row (a miss register's read-out may still take the gap). MAP/UNMAP_PAGE
// start only when no miss register works on their page, and while they run that page's
// registers wait before their directory lookup (lock_o): the entry never changes under
// a walk.
//
// What SYNC (and MAP/UNMAP before reading the page) waits for (docs/qp-cache.md, section
// 8): every write-back buffer entry in flight when it starts (sync_start_o), every line
// it reads out, and every victim read out until its scan ends or by a miss register that
// had reserved its dirty victim before then (snap_q: such a victim may be a line the
// scan found already reserved).
// Lines written after the scan passed them are later writes, not the SYNC's.
//   SYNC_CACHE:    Scan (read every dirty line out into the write-back buffer), Drain
//                  (wait until memory acknowledged those writes), answer.
//   MAP/UNMAP:     Old (read the entry as it is), Scan (write back the old page's lines),
//                  Drain, Page (read the valid bit of each of its 64 QPCs in memory: RES_BUSY if
//                  one is set), Drop (drop the page's now clean lines), Dir (write the
//                  entry), answer.
// A dirty line is marked clean when it is read out: the write-back buffer entry holds
// its data until memory takes it (a write answered with an error is sent again, as
// often as it takes), so the scan moves on at once and the writes of many lines are in
// flight together (issue 27 item 2). Drain waits until the buffer has no entry the
// command must wait for (qpm_wb_buffer's sync marks), so SYNC or MAP/UNMAP answers, or
// reads the page, only once memory holds the data: no write error reaches the answer
// (docs/qp-cache.md, section 10). XDirWait sends a failed directory write again. Every
// memory request is held, unchanged, until the memory port takes it. Every answer waits
// for rsp_ready_i (XAnswer holds one a memory response decided): a fill that makes its
// QP fatal, a take-back included, has the answer slot of its cycle.
`include "qpm_assert.svh"

module qpm_cache_maint #(
  parameter int unsigned Lines    = 256,
  parameter int unsigned PageBits = 6,
  parameter int unsigned DirIdxW  = 18,
  parameter int unsigned Mshrs    = 8,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [63:0]              qpt_base_i,
  // a SYNC or DirWrite request from the pipe
  input  logic                     start_i,
  input  qpm_pkg::ctx_req_t        start_req_i,
  output logic                     busy_o,
  output logic                     lock_o,           // MAP/UNMAP of lock_idx_o under way
  output logic [DirIdxW-1:0]       lock_idx_o,
  input  logic                     rsp_ready_i,      // an answer may go this cycle
  // the write-back buffer entries SYNC waits for
  output logic                     sync_start_o,     // every entry in flight now
  output logic                     mark_victims_o,   // the victim read out now
  input  logic [Mshrs-1:0]         victim_out_i,     // miss registers with a victim to read out
  input  logic                     wbread_i,         // ... one is read out now
  input  logic [MshrW-1:0]         wbread_idx_i,

  // the line being scanned
  output logic [LineW-1:0]         scan_line_o,
  output logic                     scan_want_o,      // the scan looks at scan_line_o ...
  input  logic                     scan_ok_i,        // ... and its QPN is at hand
  input  logic                     drop_hold_i,      // a drop waits this cycle (line writes)
  input  logic                     scan_valid_i,
  input  logic                     scan_dirty_i,
  input  logic [qpm_pkg::QpnW-1:0] scan_qpn_i,
  output logic                     clean_o,          // scan_line_o is clean again
  output logic                     drop_o,           // scan_line_o is dropped
  // write a line back through the pipe and the write-back buffer
  output logic                     xread_o,          // ask for the pipe's read slot ...
  input  logic                     xread_ok_i,       // ... granted this cycle
  input  logic                     sync_pend_i,      // a write-back it waits for is in flight
  input  logic                     page_wfault_i,    // a write of the page was given up
  // directory and page reads (ID MaintRdId), the directory write (ID MaintWrId)
  output logic                     mem_req_valid_o,
  input  logic                     mem_req_ready_i,
  output logic                     mem_req_write_o,
  output logic [63:0]              mem_req_addr_o,
  output logic [63:0]              mem_req_wdata_o,
  input  logic                     mem_rsp_valid_i,
  input  logic                     mem_rsp_write_i,
  input  logic                     mem_rsp_error_i,
  input  logic [63:0]              mem_rsp_word_i,
  // the directory cache drops its copy of the entry once memory took the write
  output logic                     dir_inval_o,
  output logic [DirIdxW-1:0]       dir_inval_idx_o,
  output logic                     mapped_any_o,
  // the answer
  output logic                     rsp_valid_o,
  output logic [qpm_pkg::CtxTagW-1:0] rsp_tag_o,
  output qpm_pkg::ctx_status_e     rsp_status_o
);

  typedef enum logic [3:0] {
    XIdle     = 4'd0,
    XScan     = 4'd1,   // look at line x_line_q
    XDrain    = 4'd2,   // wait for the write-backs to be acknowledged
    XDirReq   = 4'd3,   // write the directory entry
    XDirWait  = 4'd4,
    XOldReq   = 4'd5,   // read the directory entry as it is
    XOldWait  = 4'd6,
    XPageReq  = 4'd7,   // read the first word of QPC slot x_slot_q of the old page
    XPageWait = 4'd8,
    XDrop     = 4'd9,   // drop the page's (now clean) lines, one per cycle
    XAnswer   = 4'd10   // answer x_status_q when the answer slot is free
  } maint_e;

  maint_e              x_state_q, x_state_d;
  qpm_pkg::ctx_status_e x_status_q, x_status_d;  // XAnswer's
  logic                x_sync_q;                 // SYNC_CACHE, else MAP/UNMAP_PAGE
  logic [qpm_pkg::CtxTagW-1:0] x_tag_q;
  logic [DirIdxW-1:0]  x_dir_idx_q;
  logic [63:3]         x_dir_addr_q;             // the entry's address, added up at the start
  logic [63:0]         x_entry_q;                // the entry MAP/UNMAP_PAGE writes
  logic [LineW-1:0]    x_line_q, x_line_d;
  logic                x_old_valid_q;
  logic [63:12]        x_old_page_q;
  logic [PageBits-1:0] x_slot_q, x_slot_d;
  logic [DirIdxW:0]    mapped_count_q, mapped_count_d;   // mapped directory entries

  logic [DirIdxW-1:0] x_dir_idx;
  logic               x_sync, x_line_in_page, x_needs_wb, x_last_line;
  assign x_dir_idx      = x_dir_idx_q;
  assign x_sync         = x_sync_q;
  assign x_line_in_page = DirIdxW'(scan_qpn_i >> PageBits) == x_dir_idx;
  assign x_needs_wb     = scan_ok_i && scan_valid_i && scan_dirty_i && (x_sync || x_line_in_page);
  assign x_last_line    = 32'(x_line_q) == Lines - 1;

  assign busy_o      = x_state_q != XIdle;
  assign lock_o      = busy_o && !x_sync;
  assign lock_idx_o  = x_dir_idx;
  // Registered: the buffer marks (and re-arms) its entries in the command's second
  // cycle, not the first, so the pipe's hand-over decision does not reach the buffer's
  // per-entry state. The entries in flight then are those of the first cycle, less the
  // ones memory just acknowledged, plus any read out in it (a superset, safe); the drain
  // comes after the scan (SyncMarkedBeforeDrain_A).
  logic sync_start_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) sync_start_q <= 1'b0;
    else         sync_start_q <= x_state_q == XIdle && start_i;
  end
  assign sync_start_o   = sync_start_q;
  // The registers that still had a dirty victim to read out when the scan ended.
  logic [Mshrs-1:0] snap_q;
  logic             xread_gap_q;   // the engine read a line out last cycle
  logic             snap;
  logic x_before_drain;   // from the start to the end of the scan
  assign x_before_drain = x_state_q == XScan || x_state_q == XOldReq || x_state_q == XOldWait;
  assign snap           = x_state_q == XScan && scan_ok_i && x_last_line
                       && !(x_needs_wb && !xread_ok_i);
  assign mark_victims_o = x_before_drain || (wbread_i && snap_q[wbread_idx_i]);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      snap_q      <= '0;
      xread_gap_q <= 1'b0;
    end else begin
      xread_gap_q <= xread_o && xread_ok_i;
      for (int unsigned m = 0; m < Mshrs; m++) begin
        if (snap) snap_q[m] <= victim_out_i[m] && !(wbread_i && wbread_idx_i == MshrW'(m));
        else if (wbread_i && wbread_idx_i == MshrW'(m)) snap_q[m] <= 1'b0;
      end
    end
  end
  assign scan_line_o = x_line_q;
  assign scan_want_o = x_state_q == XScan || x_state_q == XDrop;
  // Never two read-outs of its own in a row: a gap for the requests (xread_gap_q).
  assign xread_o     = x_state_q == XScan && x_needs_wb && !xread_gap_q;
  assign clean_o     = xread_o && xread_ok_i;   // the buffer holds the data from now on
  assign drop_o      = x_state_q == XDrop && scan_ok_i && !drop_hold_i && scan_valid_i
                    && x_line_in_page;

  assign mem_req_valid_o = x_state_q == XDirReq || x_state_q == XOldReq || x_state_q == XPageReq;
  assign mem_req_write_o = x_state_q == XDirReq;
  // Word 0 of the slot's QPC holds valid: the page and the slot side by side. The
  // directory entry's address was added up when the command started, off this path.
  assign mem_req_addr_o  = (x_state_q == XPageReq)
                         ? {x_old_page_q, 6'(x_slot_q), 6'b0}
                         : {x_dir_addr_q, 3'b0};
  assign mem_req_wdata_o = x_entry_q;

  assign dir_inval_idx_o = x_dir_idx;
  assign dir_inval_o     = x_state_q == XDirWait && mem_rsp_valid_i && mem_rsp_write_i
                        && !mem_rsp_error_i;
  assign mapped_any_o    = mapped_count_q != '0;

  always_comb begin
    x_state_d      = x_state_q;
    x_line_d       = x_line_q;
    x_slot_d       = x_slot_q;
    mapped_count_d = mapped_count_q;
    x_status_d     = x_status_q;
    rsp_valid_o    = 1'b0;
    rsp_status_o   = qpm_pkg::CtxOk;
    unique case (x_state_q)
      XIdle: begin
        if (start_i) begin
          x_line_d  = '0;
          x_slot_d  = '0;
          x_state_d = (start_req_i.op == qpm_pkg::CtxDirWrite) ? XOldReq : XScan;
        end
      end
      XScan: begin
        if (!scan_ok_i || (x_needs_wb && !xread_ok_i)) begin
          x_state_d = XScan;       // wait for the read slot and a buffer entry
        end else if (x_last_line) begin
          x_line_d  = '0;
          x_state_d = XDrain;
        end else begin
          x_line_d = x_line_q + LineW'(1);
        end
      end
      // The write-back buffer sends a write answered with an error again, so only OKAYs
      // end the wait.
      XDrain: begin
        if (!sync_pend_i && snap_q == '0) begin
          if (x_sync) begin
            if (rsp_ready_i) begin
              x_state_d   = XIdle;   // memory holds every QPC: OK
              rsp_valid_o = 1'b1;
            end
          end else if (page_wfault_i) begin
            // A context of the page is not in memory (its write was given up, docs/qp-cache.md
            // section 20): the page holds a QP memory cannot show, so it stays (BUSY).
            if (rsp_ready_i) begin
              x_state_d    = XIdle;
              rsp_valid_o  = 1'b1;
              rsp_status_o = qpm_pkg::CtxBusy;
            end
          end else begin
            // Memory now holds every QPC of the page: look for a valid one.
            x_state_d = x_old_valid_q ? XPageReq : XDirReq;
          end
        end
      end
      XOldReq: if (mem_req_ready_i) x_state_d = XOldWait;
      XOldWait: begin
        if (mem_rsp_valid_i && !mem_rsp_write_i) begin
          if (mem_rsp_error_i) begin
            x_state_d  = XAnswer;     // nothing changed
            x_status_d = qpm_pkg::CtxMemErr;
          end else begin
            x_state_d = XScan;
          end
        end
      end
      XPageReq: if (mem_req_ready_i) x_state_d = XPageWait;
      XPageWait: begin
        if (mem_rsp_valid_i && !mem_rsp_write_i) begin
          if (mem_rsp_error_i || mem_rsp_word_i[0]) begin
            // A valid QP (or a word that cannot be read) keeps the page: nothing changes.
            x_state_d  = XAnswer;
            x_status_d = mem_rsp_error_i ? qpm_pkg::CtxMemErr : qpm_pkg::CtxBusy;
          end else if (32'(x_slot_q) == (1 << PageBits) - 1) begin
            x_state_d = XDrop;
          end else begin
            x_slot_d  = x_slot_q + PageBits'(1);
            x_state_d = XPageReq;
          end
        end
      end
      XDrop: begin
        if (!scan_ok_i || drop_hold_i) x_state_d = XDrop;   // the line's QPN comes from the tag RAM
        else if (x_last_line) x_state_d = XDirReq;
        else             x_line_d  = x_line_q + LineW'(1);
      end
      XDirReq: if (mem_req_ready_i) x_state_d = XDirWait;
      XDirWait: begin
        if (mem_rsp_valid_i && mem_rsp_write_i && mem_rsp_error_i) begin
          x_state_d = XDirReq;   // a failed directory write is sent again
        end else if (mem_rsp_valid_i && mem_rsp_write_i) begin
          x_state_d  = XAnswer;
          x_status_d = qpm_pkg::CtxOk;
          // Entries mapped since reset; an entry software left mapped across a reset
          // is not counted, and its unmap does not wrap the count below zero.
          if (x_old_valid_q != x_entry_q[0]) begin
            if (x_entry_q[0]) begin
              mapped_count_d = mapped_count_q + (DirIdxW + 1)'(1);
            end else if (mapped_count_q != '0) begin
              mapped_count_d = mapped_count_q - (DirIdxW + 1)'(1);
            end
          end
        end
      end
      XAnswer: begin
        if (rsp_ready_i) begin
          x_state_d    = XIdle;
          rsp_valid_o  = 1'b1;
          rsp_status_o = x_status_q;
        end
      end
      default: ;
    endcase
  end
  assign rsp_tag_o = x_tag_q;

  logic unused_start;   // a SYNC or DirWrite carries no QPC; the entry's bits 11:1 are 0
  assign unused_start = ^{start_req_i.payload[qpm_pkg::QpcW-1:64],
                          start_req_i.index[qpm_pkg::QpnW-1:DirIdxW],
                          mem_rsp_word_i[11:1]};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_state_q      <= XIdle;
      x_status_q     <= qpm_pkg::CtxOk;
      x_sync_q       <= 1'b0;
      x_tag_q        <= '0;
      x_dir_idx_q    <= '0;
      x_dir_addr_q   <= '0;
      x_entry_q      <= '0;
      x_line_q       <= '0;
      x_old_valid_q  <= 1'b0;
      x_old_page_q   <= '0;
      x_slot_q       <= '0;
      mapped_count_q <= '0;
    end else begin
      x_state_q      <= x_state_d;
      x_status_q     <= x_status_d;
      x_line_q       <= x_line_d;
      x_slot_q       <= x_slot_d;
      mapped_count_q <= mapped_count_d;
      if (x_state_q == XIdle && start_i) begin
        x_sync_q    <= start_req_i.op == qpm_pkg::CtxSync;
        x_tag_q     <= start_req_i.tag;
        x_dir_idx_q <= start_req_i.index[DirIdxW-1:0];
        x_dir_addr_q <= 61'((qpt_base_i >> 3) + 64'(start_req_i.index[DirIdxW-1:0]));
        x_entry_q   <= start_req_i.payload[63:0];   // the directory entry
      end
      if (x_state_q == XOldWait && mem_rsp_valid_i && !mem_rsp_write_i) begin
        x_old_valid_q <= mem_rsp_word_i[0];
        x_old_page_q  <= mem_rsp_word_i[63:12];
      end
    end
  end

  `QPM_ASSERT_IMPL(StartWhenIdle_A, start_i, x_state_q == XIdle)
  `QPM_ASSERT_IMPL(SyncMarkedBeforeDrain_A, sync_start_o, x_before_drain)
  // The scan stays on a line until its read-out is granted (or, beside traffic, a miss
  // register took the line as its victim: then the victim's write-back carries it).
  `QPM_ASSERT_NEXT(XreadStable_A, xread_o && !xread_ok_i, $stable(x_line_q))
  `QPM_ASSERT_NEXT(MemReqStable_A, mem_req_valid_o && !mem_req_ready_i, mem_req_valid_o
                              && $stable(mem_req_write_o) && $stable(mem_req_addr_o)
                              && $stable(mem_req_wdata_o))

endmodule
