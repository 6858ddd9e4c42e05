rtl/qpm_pkg.sv
rtl/common/qpm_ram_1p.sv
rtl/cmd/qpm_qp_trans_table.sv
rtl/cmd/qpm_state_enforcer.sv
rtl/cmd/qpm_cmd_unit.sv
rtl/ctx/qpm_qpc_reset.sv
rtl/ctx/qpm_qpc_store.sv
rtl/qpm_top.sv
