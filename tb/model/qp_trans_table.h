// The Linux kernel's qp_state_table (drivers/infiniband/core/verbs.c, mainline) as data:
// for every valid (type, current, next) the REQUIRED and OPTIONAL attribute masks
// (enum ib_qp_attr_mask bit positions). SPEC.md §5; docs/state-machine.md.
//
// The RTL holds the same table as logic; the golden model looks transitions up here.
#pragma once

#include <cstdint>
#include <vector>

#include "qpm_types.h"

namespace qpm {

// One row of ib-qp-state-table.md Appendix A: TYPE,CUR,NEXT,REQ_HEX,OPT_HEX.
struct TransRow {
  QpType type;
  QpState cur;
  QpState next;
  uint32_t req;
  uint32_t opt;
};

// The 66 rows (22 valid (cur, next) pairs for each of RC, UC, UD), in Appendix A order.
extern const std::vector<TransRow> kTransTable;

struct TransEntry {
  bool valid;
  uint32_t req;
  uint32_t opt;
};

// The entry for (qp_type, cur, next), raw ib_qp_type / ib_qp_state values. A pair
// missing from the table, or any type other than RC/UC/UD or state above ERR, gives
// {false, 0, 0}.
TransEntry lookup_transition(uint32_t qp_type, uint32_t cur, uint32_t next);

}  // namespace qpm
