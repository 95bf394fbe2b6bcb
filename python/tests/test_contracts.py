import json

import pytest

import ordo


def test_builtin_contracts_listed():
    ids = [c.id for c in ordo.contracts()]
    assert "fwd.f32.fma-chain/1" in ids and "bwd.dw.f32.fma-chain/1" in ids
    assert ids.index("fwd.f32.fma-chain/1") < ids.index("bwd.dx.f32.fma-chain/1")  # forward ones first


def test_contract_attributes():
    c = ordo.Contract.load("fwd.bf16.tc-fdpa-sm90/1")
    assert (c.op, c.operand_dtype) == ("forward", "bf16")
    assert set(c.output_dtypes) == {"f32", "bf16"}
    assert c.json["schema"] == "ordo.contract/1"


def test_load_from_text_dict_and_file(tmp_path):
    base = ordo.Contract.load("fwd.f32.fma-chain/1")
    j = base.json
    j["id"] = "mine.fwd/1"
    from_dict = ordo.Contract.load(j)
    from_text = ordo.Contract.load(json.dumps(j))
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(j))
    from_file = ordo.Contract.load(path)
    assert from_dict.id == from_text.id == from_file.id == "mine.fwd/1"
    assert from_dict == from_text == from_file != base


def test_unknown_id_names_the_nearest():
    with pytest.raises(ordo.ContractError, match="fwd.f32.fma-chain/1"):
        ordo.Contract.load("fwd.f32.fma-chian/1")


def test_malformed_contract_names_the_field():
    j = ordo.Contract.load("fwd.f32.fma-chain/1").json
    j["k_structure"] = {"kind": "segments", "length": 0, "combine": "ascending_add_rn"}
    with pytest.raises(ordo.ContractError, match="length"):
        ordo.Contract.load(j)
    with pytest.raises(ordo.ContractError):
        ordo.Contract.load('{"schema": "ordo.contract/1", "unknown": 1}')


def test_wrong_kind_of_contract_for_the_call():
    import numpy as np
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ordo.ContractError, match="backward_weight"):
        ordo.emulate(x, x, contract="bwd.dw.f32.fma-chain/1")
    with pytest.raises(ordo.ArgumentError):
        ordo.Contract.load(42)
