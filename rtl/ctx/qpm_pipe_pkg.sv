// qpm_pipe_pkg: what the QP cache's pipe does with the request in P0 (qpm_pipe_decide
// decides it, qpm_qpc_pipe carries it out; docs/qp-cache.md, "Pipeline"), the states
// of its miss registers, and the cache's event counters.
package qpm_pipe_pkg;

  // Event counters of the QP cache (its count_o), reported through the CSR block
  // (docs/qp-table.md), in register order up to CntMissWaits. CntWbRetries came later:
  // qpm_top maps it after every other counter, so the older addresses stay.
  parameter int unsigned CntHits      = 0;
  parameter int unsigned CntMisses    = 1;
  parameter int unsigned CntMerged    = 2;
  parameter int unsigned CntEvictions = 3;
  parameter int unsigned CntWritebacks = 4;
  parameter int unsigned CntWalks     = 5;
  parameter int unsigned CntDirHits   = 6;
  parameter int unsigned CntRefused   = 7;
  parameter int unsigned CntMemErrors = 8;
  parameter int unsigned CntMissWaits = 9;
  parameter int unsigned CntWbRetries = 10;  // writes answered with an error, sent again
  parameter int unsigned NumCounters  = 11;

  typedef enum logic [2:0] {
    PipeStall    = 3'd0,   // nothing consumed this cycle
    PipeRespond  = 3'd1,   // answered without the RAM (status only)
    PipeReadHit  = 3'd2,
    PipeWriteHit = 3'd3,
    PipePark     = 3'd4,   // joins a miss register (new miss or merge)
    PipeMaint    = 3'd5,   // handed to the maintenance engine
    PipeRmw      = 3'd6,   // read, decide in P1, write back (CtxDp, or a mark)
    PipeDone     = 3'd7    // a mark consumed without the RAM (a miss register takes over)
  } pipe_act_e;

  // A miss register's state (qpm_mshr_reg; docs/qp-cache.md, "Misses").
  typedef enum logic [3:0] {
    MFree     = 4'd0,
    MVictim   = 4'd1,
    MWbRead   = 4'd2,
    MDir      = 4'd3,
    MDirReq   = 4'd4,
    MDirWait  = 4'd5,
    MFillReq  = 4'd6,
    MFillWait = 4'd7,
    MReplay   = 4'd8
  } mshr_state_e;

endpackage
