package domain

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestBillCloneSharesNothing: a change made through every slice and
// pointer of a clone, down to the last field, leaves the bill it was
// cloned from as it was. A field added to Bill or to what it holds is
// covered without changing the test: it fails until Clone copies it.
func TestBillCloneSharesNothing(t *testing.T) {
	var b Bill
	fillAll(reflect.ValueOf(&b).Elem())
	if b.Summary == nil || len(b.Summary.Removed) == 0 || len(b.Reversed) == 0 || b.Certified == nil {
		t.Fatalf("the bill was not filled: %+v", b)
	}
	before, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	c := b.Clone()
	if got, _ := json.Marshal(c); string(got) != string(before) {
		t.Fatalf("the clone differs:\n%s\nfrom\n%s", got, before)
	}
	changeAll(reflect.ValueOf(&c).Elem())
	if after, _ := json.Marshal(b); string(after) != string(before) {
		t.Fatalf("changing the clone changed the bill:\n%s\nwas\n%s", after, before)
	}
}

// fillAll gives every exported field reachable from v a value: slices
// two elements, pointers a target.
func fillAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fillAll(v.Index(i))
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem())
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// changeAll changes every exported field reachable from v in place,
// through its slices' elements and its pointers' targets.
func changeAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				changeAll(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			changeAll(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			changeAll(v.Elem())
		}
	case reflect.String:
		v.SetString(v.String() + "-changed")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(v.Int() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	}
}
