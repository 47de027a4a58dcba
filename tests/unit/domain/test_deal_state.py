"""The phase structs' field copies (`table_fields`, `contract_fields`) and the seating helpers.

The fold builds each new phase from a literal copy of the table's fields (faster than reading
``__struct_fields__``); these tests keep those literals in step with the structs.
"""

from __future__ import annotations

import typing

from deal_helpers import ALL_TEN, FOREHAND, dealt, declared, won_auction

from domain.deal import decider
from domain.deal.state import (
    Contracted,
    ContractFields,
    DealTable,
    TableFields,
    active_order,
    contract_fields,
    own_controllers,
    table_fields,
)
from domain.rules import rules_for


def test_table_fields_name_every_field_of_the_table():
    assert set(typing.get_type_hints(TableFields)) == set(DealTable.__struct_fields__)


def test_contract_fields_name_every_field_of_a_contracted_phase():
    assert set(typing.get_type_hints(ContractFields)) == set(Contracted.__struct_fields__)


def test_table_fields_copy_the_values_of_the_state():
    state = declared("6S")
    assert isinstance(state, Contracted)
    as_read = {name: getattr(state, name) for name in DealTable.__struct_fields__}
    assert table_fields(state) == as_read


def test_contract_fields_copy_the_values_of_the_state():
    state = won_auction("6S")
    assert isinstance(state, Contracted) and state.declarer == FOREHAND
    as_read = {name: getattr(state, name) for name in Contracted.__struct_fields__}
    assert contract_fields(state) == as_read


def test_the_first_hand_sits_left_of_the_dealer():
    assert active_order(2, 3) == (0, 1, 2)
    assert active_order(1, 4) == (2, 3, 0)  # at four the dealer (seat 1) sits out


def test_a_sitting_out_dealer_controls_no_hand():
    state = dealt(rules=rules_for("sochi", {"players": 4}), deal=_four_hands(), dealer=1)
    assert isinstance(state, DealTable)
    assert own_controllers(state) == (0, -1, 2, 3)


def test_the_decider_module_keeps_its_public_names():
    for name in (
        "initial_state", "decide", "evolve", "fold", "legal_actions", "to_act", "is_terminal",
        "active_order",
    ):  # fmt: skip
        assert callable(getattr(decider, name)), name
    assert decider.active_order is active_order


def _four_hands() -> tuple[tuple[tuple[str, ...], ...], tuple[str, str]]:
    hands = list(ALL_TEN[0])
    hands.insert(1, ())
    return tuple(hands), ALL_TEN[1]
