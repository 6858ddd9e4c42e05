// qpm_pipe_pkg: what the QP cache's pipe does with the request in P0 (qpm_pipe_decide
// decides it, qpm_qpc_pipe carries it out; docs/qp-cache.md, "Pipeline").
package qpm_pipe_pkg;

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

endpackage
